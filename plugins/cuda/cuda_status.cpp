#include "cuda_status.h"

#include "omnirt_plugin_common/vendor_status.h"

namespace omnirt::cuda {
namespace {

#define OMNIRT_CUDA_CODE(code, status) \
  { code, #code, OMNIRT_STATUS_##status }

// The runtime codes with a meaning of their own; every other is INTERNAL.
const plugin_common::VendorCode kCodes[] = {
    OMNIRT_CUDA_CODE(cudaSuccess, OK),
    OMNIRT_CUDA_CODE(cudaErrorNotReady, NOT_READY),
    OMNIRT_CUDA_CODE(cudaErrorMemoryAllocation, OUT_OF_MEMORY),
    OMNIRT_CUDA_CODE(cudaErrorInvalidValue, INVALID_ARGUMENT),
    OMNIRT_CUDA_CODE(cudaErrorInvalidDevice, INVALID_ARGUMENT),
    OMNIRT_CUDA_CODE(cudaErrorInvalidDevicePointer, INVALID_ARGUMENT),
    OMNIRT_CUDA_CODE(cudaErrorInvalidResourceHandle, INVALID_ARGUMENT),
    OMNIRT_CUDA_CODE(cudaErrorInvalidMemcpyDirection, INVALID_ARGUMENT),
    OMNIRT_CUDA_CODE(cudaErrorInvalidConfiguration, INVALID_ARGUMENT),
    OMNIRT_CUDA_CODE(cudaErrorStreamCaptureUnsupported, INVALID_ARGUMENT),
    OMNIRT_CUDA_CODE(cudaErrorStreamCaptureInvalidated, INVALID_ARGUMENT),
    OMNIRT_CUDA_CODE(cudaErrorStreamCaptureUnmatched, INVALID_ARGUMENT),
    OMNIRT_CUDA_CODE(cudaErrorStreamCaptureWrongThread, INVALID_ARGUMENT),
    OMNIRT_CUDA_CODE(cudaErrorCapturedEvent, INVALID_ARGUMENT),
    OMNIRT_CUDA_CODE(cudaErrorIllegalState, INVALID_ARGUMENT),
    OMNIRT_CUDA_CODE(cudaErrorNoDevice, UNAVAILABLE),
    OMNIRT_CUDA_CODE(cudaErrorInsufficientDriver, UNAVAILABLE),
    OMNIRT_CUDA_CODE(cudaErrorInitializationError, UNAVAILABLE),
    OMNIRT_CUDA_CODE(cudaErrorDevicesUnavailable, UNAVAILABLE),
    OMNIRT_CUDA_CODE(cudaErrorSystemDriverMismatch, UNAVAILABLE),
    OMNIRT_CUDA_CODE(cudaErrorCompatNotSupportedOnDevice, UNAVAILABLE),
    OMNIRT_CUDA_CODE(cudaErrorNotSupported, NOT_SUPPORTED),
    OMNIRT_CUDA_CODE(cudaErrorNoKernelImageForDevice, NOT_SUPPORTED),
    OMNIRT_CUDA_CODE(cudaErrorUnsupportedPtxVersion, NOT_SUPPORTED),
    // Sticky errors: the context is unusable until the process ends.
    OMNIRT_CUDA_CODE(cudaErrorIllegalAddress, DEVICE_LOST),
    OMNIRT_CUDA_CODE(cudaErrorLaunchFailure, DEVICE_LOST),
    OMNIRT_CUDA_CODE(cudaErrorLaunchTimeout, DEVICE_LOST),
    OMNIRT_CUDA_CODE(cudaErrorHardwareStackError, DEVICE_LOST),
    OMNIRT_CUDA_CODE(cudaErrorIllegalInstruction, DEVICE_LOST),
    OMNIRT_CUDA_CODE(cudaErrorMisalignedAddress, DEVICE_LOST),
    OMNIRT_CUDA_CODE(cudaErrorInvalidAddressSpace, DEVICE_LOST),
    OMNIRT_CUDA_CODE(cudaErrorInvalidPc, DEVICE_LOST),
    OMNIRT_CUDA_CODE(cudaErrorAssert, DEVICE_LOST),
    OMNIRT_CUDA_CODE(cudaErrorECCUncorrectable, DEVICE_LOST),
};

#undef OMNIRT_CUDA_CODE

}  // namespace

omnirt_status status_of(cudaError_t error) noexcept {
  return plugin_common::lookup(kCodes, int64_t(error)).status;
}

void raise(const Symbols& cuda, cudaError_t error, const char* call) {
  plugin_common::VendorCode row = plugin_common::lookup(kCodes, int64_t(error));
  row.name = cuda.cudaGetErrorName(error);  // the runtime knows every name
  plugin_common::fail_vendor("cuda", call, row, cuda.cudaGetErrorString(error));
}

}  // namespace omnirt::cuda
