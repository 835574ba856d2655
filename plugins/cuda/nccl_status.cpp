// NCCL results as OmniRT statuses.
#include "nccl_library.h"

namespace omnirt::cuda {
namespace {

#define OMNIRT_NCCL_CODE(code, status) \
  { code, #code, OMNIRT_STATUS_##status }

const plugin_common::VendorCode kCodes[] = {
    OMNIRT_NCCL_CODE(ncclSuccess, OK),
    OMNIRT_NCCL_CODE(ncclUnhandledCudaError, INTERNAL),
    OMNIRT_NCCL_CODE(ncclSystemError, INTERNAL),
    OMNIRT_NCCL_CODE(ncclInternalError, INTERNAL),
    OMNIRT_NCCL_CODE(ncclInvalidArgument, INVALID_ARGUMENT),
    OMNIRT_NCCL_CODE(ncclInvalidUsage, INVALID_ARGUMENT),
    // A peer failed or left: for the ABI, a rank that did not join.
    OMNIRT_NCCL_CODE(ncclRemoteError, TIMEOUT),
    OMNIRT_NCCL_CODE(ncclInProgress, NOT_READY),
    OMNIRT_NCCL_CODE(ncclTimeout, TIMEOUT),
};

}  // namespace

plugin_common::VendorCode nccl_code(ncclResult_t result) { return plugin_common::lookup(kCodes, result); }

}  // namespace omnirt::cuda
