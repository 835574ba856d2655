#include "backend.h"

#include <algorithm>
#include <string_view>

#include "omnirt/host.h"
#include "plugin_call.h"

omnirt_backend::~omnirt_backend() {
  if (state == nullptr) return;
  try {
    vtable.destroy(state);
  } catch (...) {  // a plugin's destroy must not take the host down
  }
}

namespace omnirt {

omnirt_status known_device_count(omnirt_backend& backend, int32_t* count) noexcept {
  int32_t known = backend.device_count.load(std::memory_order_acquire);
  if (known < 0) {
    OMNIRT_RETURN_IF_ERROR(
        call_slot<&omnirt_backend_vtable::get_device_count>(backend, "get_device_count", &known));
    if (known < 0) known = 0;  // a nonsensical answer means no usable device
    backend.device_count.store(known, std::memory_order_release);
  }
  *count = known;
  return OMNIRT_STATUS_OK;
}

omnirt_status slot_not_implemented(const omnirt_backend& backend, const char* slot) noexcept {
  return fail(OMNIRT_STATUS_NOT_SUPPORTED, backend.name, "backend '{}' does not implement {}",
              backend.name, slot);
}

omnirt_status slot_threw(const omnirt_backend& backend, const char* slot) noexcept {
  return fail(OMNIRT_STATUS_INTERNAL, backend.name,
              "backend '{}': an exception escaped {} (plugins must return a status, PLUGIN_RULES 8)",
              backend.name, slot);
}

omnirt_status slot_failed(const omnirt_backend& backend, const char* slot, omnirt_status status) noexcept {
  if (status == OMNIRT_STATUS_NOT_READY) return status;
  const PluginError* detail = take_plugin_error(status);
  const int64_t native_code = detail != nullptr ? detail->native_code : 0;
  if (detail != nullptr && !detail->message.empty()) {
    return record_error(status, detail->message, backend.name, native_code);
  }
  char message[256];
  const auto written = fmt::format_to_n(message, sizeof message, "backend '{}': {} failed with {}",
                                        backend.name, slot, omnirt_status_name(status));
  return record_error(status, std::string_view(message, std::min(written.size, sizeof message)),
                      backend.name, native_code);
}

omnirt_status backend_unavailable(const omnirt_backend& backend, const char* call) noexcept {
  return fail(OMNIRT_STATUS_UNAVAILABLE, backend.name, "{}: backend '{}' is not available here: {}",
              call, backend.name, backend.unavailable_reason);
}

omnirt_status check_device_slow(omnirt_backend& backend, int32_t device, const char* call) noexcept {
  int32_t count = 0;
  OMNIRT_RETURN_IF_ERROR(known_device_count(backend, &count));
  if (device >= 0 && device < count) return OMNIRT_STATUS_OK;
  return fail(OMNIRT_STATUS_OUT_OF_RANGE, backend.name,
              "{}: device {} is out of range: backend '{}' has {} device(s)", call, device,
              backend.name, count);
}

}  // namespace omnirt
