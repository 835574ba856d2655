// Calling into a backend's vtable: the guard every call into a plugin goes
// through, and the argument checks routed calls share.
#ifndef OMNIRT_CORE_PLUGIN_CALL_H_
#define OMNIRT_CORE_PLUGIN_CALL_H_

#include <atomic>

#include "backend.h"
#include "error.h"
#include "host_services.h"

namespace omnirt {

// Cold paths, out of line: each records the error and returns the status.

/// NOT_SUPPORTED "backend 'x' does not implement <slot>".
omnirt_status slot_not_implemented(const omnirt_backend& backend, const char* slot) noexcept;
/// INTERNAL: an exception escaped the slot.
omnirt_status slot_threw(const omnirt_backend& backend, const char* slot) noexcept;
/// The slot returned `status`: records the plugin's set_error detail for that
/// status (or a generic message) unless the status is NOT_READY, which is not
/// a failure.
omnirt_status slot_failed(const omnirt_backend& backend, const char* slot, omnirt_status status) noexcept;
/// UNAVAILABLE "backend 'x' is not available here: <reason>".
omnirt_status backend_unavailable(const omnirt_backend& backend, const char* call) noexcept;
/// OUT_OF_RANGE for a bad device index; asks for the device count the first time.
omnirt_status check_device_slow(omnirt_backend& backend, int32_t device, const char* call) noexcept;

/// Calls vtable slot `Slot` of `backend` with (state, args...). NOT_SUPPORTED
/// when the plugin lacks the slot, INTERNAL when it throws, else the slot's
/// status (with the plugin's detail recorded on failure). No lock, no
/// allocation, no lookup: this is the routed hot path.
template <auto Slot, class... Args>
inline omnirt_status call_slot(omnirt_backend& backend, const char* slot, Args... args) noexcept {
  const auto fn = backend.vtable.*Slot;
  if (OMNIRT_UNLIKELY(fn == nullptr)) return slot_not_implemented(backend, slot);
  omnirt_status status;
  try {
    status = fn(backend.state, args...);
  } catch (...) {  // defence in depth: PLUGIN_RULES 8 forbids it
    return slot_threw(backend, slot);
  }
  if (OMNIRT_UNLIKELY(status != OMNIRT_STATUS_OK)) return slot_failed(backend, slot, status);
  return OMNIRT_STATUS_OK;
}

/// INVALID_ARGUMENT for a NULL backend, UNAVAILABLE for one that cannot run here.
inline omnirt_status require_usable(const omnirt_backend* backend, const char* call) noexcept {
  if (OMNIRT_UNLIKELY(backend == nullptr)) return null_argument(call, "backend");
  if (OMNIRT_UNLIKELY(!backend->available)) return backend_unavailable(*backend, call);
  return OMNIRT_STATUS_OK;
}

/// INVALID_ARGUMENT when `pointer` is NULL.
inline omnirt_status require_non_null(const void* pointer, const char* call, const char* argument) noexcept {
  if (OMNIRT_UNLIKELY(pointer == nullptr)) return null_argument(call, argument);
  return OMNIRT_STATUS_OK;
}

/// OUT_OF_RANGE unless 0 <= device < the backend's device count.
inline omnirt_status require_device(omnirt_backend& backend, int32_t device, const char* call) noexcept {
  const int32_t count = backend.device_count.load(std::memory_order_acquire);
  if (__builtin_expect(device >= 0 && device < count, 1)) return OMNIRT_STATUS_OK;
  return check_device_slow(backend, device, call);
}

}  // namespace omnirt

#endif  // OMNIRT_CORE_PLUGIN_CALL_H_
