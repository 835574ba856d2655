#include "triton_api.h"

#include <chrono>

namespace omnirt::triton {

void check_triton(TRITONSERVER_Error* error, const char* what) {
  if (error == nullptr) return;
  const TRITONSERVER_Error_Code code = TRITONSERVER_ErrorCode(error);
  std::string message = std::string(what) + ": " + TRITONSERVER_ErrorMessage(error);
  TRITONSERVER_ErrorDelete(error);
  throw Error(code, message);
}

void log_if_error(TRITONSERVER_Error* error, const char* what) noexcept {
  if (error == nullptr) return;
  try {
    log(TRITONSERVER_LOG_ERROR, std::string(what) + ": " + TRITONSERVER_ErrorMessage(error));
  } catch (...) {
  }
  TRITONSERVER_ErrorDelete(error);
}

TRITONSERVER_Error* to_triton(const Error& error) noexcept {
  return TRITONSERVER_ErrorNew(error.code(), error.what());
}

void log(TRITONSERVER_LogLevel level, const std::string& text) noexcept {
  if (!TRITONSERVER_LogIsEnabled(level)) return;
  try {
    const std::string line = "omnirt: " + text;
    TRITONSERVER_Error* error = TRITONSERVER_LogMessage(level, __FILE__, __LINE__, line.c_str());
    if (error != nullptr) TRITONSERVER_ErrorDelete(error);
  } catch (...) {  // a log line is not worth failing the caller for
  }
}

std::string message_json(TRITONSERVER_Message* message) {
  const char* base = nullptr;
  size_t size = 0;
  check_triton(TRITONSERVER_MessageSerializeToJson(message, &base, &size), "reading a Triton message");
  return std::string(base, size);
}

uint64_t now_ns() noexcept {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace omnirt::triton
