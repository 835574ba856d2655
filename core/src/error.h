// The thread-local error detail behind omnirt_last_error(), and the helpers
// every C entry point uses to fail with a message.
#ifndef OMNIRT_CORE_ERROR_H_
#define OMNIRT_CORE_ERROR_H_

#include <fmt/format.h>

#include <cstdint>
#include <exception>
#include <new>
#include <string_view>
#include <utility>

#include "omnirt/host.h"

#define OMNIRT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/// Returns the status of `expr` from the enclosing function unless it is OK.
#define OMNIRT_RETURN_IF_ERROR(expr)                   \
  do {                                                 \
    const omnirt_status omnirt_status_ = (expr);       \
    if (OMNIRT_UNLIKELY(omnirt_status_ != OMNIRT_STATUS_OK)) { \
      return omnirt_status_;                           \
    }                                                  \
  } while (0)

namespace omnirt {

/// Records the detail of a failed call for omnirt_last_error() on this thread
/// and returns `status`. `backend` is "" for failures of the host itself.
omnirt_status record_error(omnirt_status status, std::string_view message,
                           std::string_view backend = {}, int64_t native_code = 0) noexcept;

/// record_error() with a message formatted by fmt. Never throws: if formatting
/// itself fails, a fixed message is recorded instead.
template <class... Args>
omnirt_status fail(omnirt_status status, std::string_view backend,
                   fmt::format_string<Args...> format, Args&&... args) noexcept {
  try {
    return record_error(status, fmt::format(format, std::forward<Args>(args)...), backend);
  } catch (...) {
    return record_error(status, "out of host memory while describing an error", backend);
  }
}

/// INVALID_ARGUMENT "<call>: <argument> is NULL".
omnirt_status null_argument(const char* call, const char* argument) noexcept;

/// Runs `body` (which returns an omnirt_status) so that no exception leaves a
/// C entry point: the catch-all every non-trivial entry point goes through.
template <class Body>
omnirt_status guard_api(const char* call, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(OMNIRT_STATUS_OUT_OF_MEMORY, {}, "{}: out of host memory", call);
  } catch (const std::exception& e) {
    return fail(OMNIRT_STATUS_INTERNAL, {}, "{}: unexpected exception: {}", call, e.what());
  } catch (...) {
    return fail(OMNIRT_STATUS_INTERNAL, {}, "{}: unexpected exception", call);
  }
}

}  // namespace omnirt

#endif  // OMNIRT_CORE_ERROR_H_
