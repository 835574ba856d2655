// AscendCL error codes (aclError) as OmniRT statuses.
#ifndef OMNIRT_PLUGINS_ASCEND_ACL_STATUS_H_
#define OMNIRT_PLUGINS_ASCEND_ACL_STATUS_H_

#include "acl_api.h"
#include "omnirt_plugin_common/vendor_status.h"

namespace omnirt::ascend {

constexpr aclError ACL_SUCCESS = 0;
// aclInit when the process already initialized AscendCL (another instance of
// this backend, or a framework such as torch_npu): not a failure for us.
constexpr aclError ACL_ERROR_REPEAT_INITIALIZE = 100002;

// The row of the mapping table for `code`: status and symbolic name.
plugin_common::VendorCode acl_status(aclError code);

}  // namespace omnirt::ascend

#endif  // OMNIRT_PLUGINS_ASCEND_ACL_STATUS_H_
