#include "cnrt_status.h"

namespace omnirt::cambricon {
namespace {

using plugin_common::VendorCode;

// Codes from the CNRT reference (cnrtRet_t in cnrt.h). Those missing here keep
// their number and map to INTERNAL.
constexpr VendorCode kCnrtCodes[] = {
    {1, "cnrtErrorNotReady", OMNIRT_STATUS_NOT_READY},
    {100002, "cnrtErrorInit", OMNIRT_STATUS_UNAVAILABLE},
    {100004, "cnrtErrorNoDevice", OMNIRT_STATUS_UNAVAILABLE},
    {100005, "cnrtErrorDeviceInvalid", OMNIRT_STATUS_OUT_OF_RANGE},
    {100006, "cnrtErrorArgsInvalid", OMNIRT_STATUS_INVALID_ARGUMENT},
    {100010, "cnrtErrorSysNoMem", OMNIRT_STATUS_OUT_OF_MEMORY},
    {100014, "cnrtErrorInvalidResourceHandle", OMNIRT_STATUS_INVALID_ARGUMENT},
    {100050, "cnrtErrorNotSupport", OMNIRT_STATUS_NOT_SUPPORTED},
    {100100, "cnrtErrorNoMem", OMNIRT_STATUS_OUT_OF_MEMORY},
    // A device-side assert or trap: CNRT keeps failing every later call and
    // the device state is undefined until the process resets it.
    {100128, "cnrtErrorAssert", OMNIRT_STATUS_DEVICE_LOST},
    {100132, "cnrtErrorKernelTrap", OMNIRT_STATUS_DEVICE_LOST},
    {100133, "cnrtErrorKernelUserTrap", OMNIRT_STATUS_DEVICE_LOST},
    {632006, "cnrtErrorDevice", OMNIRT_STATUS_INVALID_ARGUMENT},
    {632013, "cnrtErrorMemcpyDirectionInvalid", OMNIRT_STATUS_INVALID_ARGUMENT},
    {632014, "cnrtErrorBusy", OMNIRT_STATUS_NOT_READY},
    {632015, "cnrtErrorCndrvFuncCall", OMNIRT_STATUS_INTERNAL},
    {632019, "cnrtErrorNoCnrtContext", OMNIRT_STATUS_INTERNAL},
    {999991, "cnrtErrorUnknown", OMNIRT_STATUS_INTERNAL},
};

}  // namespace

VendorCode cnrt_status(cnrtRet_t code) { return plugin_common::lookup(kCnrtCodes, code); }

}  // namespace omnirt::cambricon
