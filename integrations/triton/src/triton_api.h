// The edge to Triton's C API: errors both ways, logging, and messages.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "error.h"
#include "triton/core/tritonbackend.h"

namespace omnirt::triton {

/// Throws Error with Triton's code and "<what>: <Triton's message>" when
/// `error` is not NULL (deleting it).
void check_triton(TRITONSERVER_Error* error, const char* what);

/// Logs `error` (prefixed by `what`) when it is not NULL, and deletes it.
void log_if_error(TRITONSERVER_Error* error, const char* what) noexcept;

/// A new TRITONSERVER_Error for `error` (owned by the caller or by Triton, per
/// the call it is handed to).
TRITONSERVER_Error* to_triton(const Error& error) noexcept;

/// Writes "omnirt: <text>" to Triton's log at `level`. Never throws.
void log(TRITONSERVER_LogLevel level, const std::string& text) noexcept;

/// The JSON text of a TRITONSERVER_Message (not deleted here).
std::string message_json(TRITONSERVER_Message* message);

/// steady_clock now in nanoseconds, the clock Triton's statistics use.
uint64_t now_ns() noexcept;

/// Runs `body` so that nothing it throws reaches Triton: returns NULL, or a
/// new TRITONSERVER_Error for the exception (which Triton then owns).
template <class Body>
TRITONSERVER_Error* guard(Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Error& e) {
    return to_triton(e);
  } catch (const std::bad_alloc&) {
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INTERNAL, "omnirt backend: out of host memory");
  } catch (const std::exception& e) {
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INTERNAL,
                                 (std::string("omnirt backend: unexpected exception: ") + e.what()).c_str());
  } catch (...) {
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INTERNAL, "omnirt backend: unexpected exception");
  }
}

}  // namespace omnirt::triton
