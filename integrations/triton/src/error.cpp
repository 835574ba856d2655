#include "error.h"

#include "omnirt/host.h"

namespace omnirt::triton {

TRITONSERVER_Error_Code code_of(omnirt_status status) noexcept {
  switch (status) {
    case OMNIRT_STATUS_INVALID_ARGUMENT:
    case OMNIRT_STATUS_OUT_OF_RANGE:
      return TRITONSERVER_ERROR_INVALID_ARG;
    case OMNIRT_STATUS_NOT_FOUND:
      return TRITONSERVER_ERROR_NOT_FOUND;
    case OMNIRT_STATUS_NOT_SUPPORTED:
    case OMNIRT_STATUS_INCOMPATIBLE:
      return TRITONSERVER_ERROR_UNSUPPORTED;
    case OMNIRT_STATUS_UNAVAILABLE:
    case OMNIRT_STATUS_NOT_READY:
    case OMNIRT_STATUS_DEVICE_LOST:
      return TRITONSERVER_ERROR_UNAVAILABLE;
    case OMNIRT_STATUS_ALREADY_EXISTS:
      return TRITONSERVER_ERROR_ALREADY_EXISTS;
    default:  // OUT_OF_MEMORY and INTERNAL have no closer Triton code
      return TRITONSERVER_ERROR_INTERNAL;
  }
}

void check_omnirt(omnirt_status status, const std::string& what) {
  if (status == OMNIRT_STATUS_OK) return;
  throw Error(code_of(status),
              what + ": " + omnirt_status_name(status) + ": " + omnirt_last_error()->message);
}

}  // namespace omnirt::triton
