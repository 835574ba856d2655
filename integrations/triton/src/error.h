// The backend's one exception type: a Triton error code and a message a user
// can act on. Thrown only inside the backend; triton_api.h turns it into a
// TRITONSERVER_Error at Triton's boundary, so nothing escapes into the server.
#pragma once

#include <stdexcept>
#include <string>

#include "omnirt/status.h"
#include "triton/core/tritonserver.h"

namespace omnirt::triton {

class Error : public std::runtime_error {
 public:
  Error(TRITONSERVER_Error_Code code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  TRITONSERVER_Error_Code code() const noexcept { return code_; }

 private:
  TRITONSERVER_Error_Code code_;
};

/// The Triton code for an OmniRT status, so that a bad request stays a 4xx
/// (INVALID_ARGUMENT -> INVALID_ARG) and a missing device a 503.
TRITONSERVER_Error_Code code_of(omnirt_status status) noexcept;

/// Throws Error(code_of(status), "<what>: <STATUS>: <omnirt_last_error()'s
/// message, verbatim>") unless `status` is OK.
void check_omnirt(omnirt_status status, const std::string& what);

}  // namespace omnirt::triton
