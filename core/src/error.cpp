#include "error.h"

#include <string>

namespace omnirt {
namespace {

struct LastError {
  omnirt_error_info info{sizeof(omnirt_error_info), OMNIRT_STATUS_OK, 0, "", ""};
  std::string message;
  std::string backend;
};

thread_local LastError t_last_error;

}  // namespace

omnirt_status record_error(omnirt_status status, std::string_view message,
                           std::string_view backend, int64_t native_code) noexcept {
  LastError& last = t_last_error;
  try {
    last.message.assign(message);
    last.backend.assign(backend);
  } catch (...) {  // out of memory: keep the status, lose the text
    last.message.clear();
    last.backend.clear();
  }
  last.info.status = status;
  last.info.native_code = native_code;
  last.info.message = last.message.c_str();
  last.info.backend = last.backend.c_str();
  return status;
}

omnirt_status null_argument(const char* call, const char* argument) noexcept {
  return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: {} is NULL", call, argument);
}

}  // namespace omnirt

const omnirt_error_info* omnirt_last_error(void) { return &omnirt::t_last_error.info; }

const char* omnirt_status_name(omnirt_status status) {
  switch (status) {
    case OMNIRT_STATUS_OK: return "OK";
    case OMNIRT_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case OMNIRT_STATUS_NOT_FOUND: return "NOT_FOUND";
    case OMNIRT_STATUS_NOT_SUPPORTED: return "NOT_SUPPORTED";
    case OMNIRT_STATUS_UNAVAILABLE: return "UNAVAILABLE";
    case OMNIRT_STATUS_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
    case OMNIRT_STATUS_INCOMPATIBLE: return "INCOMPATIBLE";
    case OMNIRT_STATUS_INTERNAL: return "INTERNAL";
    case OMNIRT_STATUS_NOT_READY: return "NOT_READY";
    case OMNIRT_STATUS_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case OMNIRT_STATUS_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case OMNIRT_STATUS_DEVICE_LOST: return "DEVICE_LOST";
    case OMNIRT_STATUS_TIMEOUT: return "TIMEOUT";
    default: return "UNKNOWN_STATUS";
  }
}
