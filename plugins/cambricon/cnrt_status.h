// CNRT error codes (cnrtRet_t) as OmniRT statuses.
#ifndef OMNIRT_PLUGINS_CAMBRICON_CNRT_STATUS_H_
#define OMNIRT_PLUGINS_CAMBRICON_CNRT_STATUS_H_

#include "cnrt_api.h"
#include "omnirt_plugin_common/vendor_status.h"

namespace omnirt::cambricon {

constexpr cnrtRet_t cnrtSuccess = 0;
// What cnrtQueueQuery and cnrtQueryNotifier answer while work is pending:
// cnrtErrorBusy before CNRT 6, cnrtErrorNotReady since.
constexpr cnrtRet_t cnrtErrorNotReady = 1;
constexpr cnrtRet_t cnrtErrorBusy = 632014;

// The row of the mapping table for `code`: status and symbolic name.
plugin_common::VendorCode cnrt_status(cnrtRet_t code);

}  // namespace omnirt::cambricon

#endif  // OMNIRT_PLUGINS_CAMBRICON_CNRT_STATUS_H_
