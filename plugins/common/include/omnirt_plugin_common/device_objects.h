// What a backend keeps behind an omnirt_stream or omnirt_event handle (the
// vendor's handle and the device it belongs to), and a helper to fill
// omnirt_device_info's text fields.
#ifndef OMNIRT_PLUGIN_COMMON_DEVICE_OBJECTS_H_
#define OMNIRT_PLUGIN_COMMON_DEVICE_OBJECTS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::plugin_common {

template <class VendorHandle>
struct DeviceStream {
  VendorHandle handle;
  int32_t device;
};

template <class VendorHandle>
struct DeviceEvent {
  DeviceEvent(VendorHandle h, int32_t d) : handle(h), device(d) {}
  VendorHandle handle;
  int32_t device;
  // The ABI calls a never-recorded event complete and waiting on it a no-op;
  // vendor runtimes differ (AscendCL reports it not ready), so the backend
  // answers for such events itself.
  std::atomic<bool> recorded{false};
};

// event_elapsed_time on an event that was never recorded is INVALID_ARGUMENT.
template <class VendorHandle>
void require_recorded(const std::string& backend, const DeviceEvent<VendorHandle>& start,
                      const DeviceEvent<VendorHandle>& end) {
  if (start.recorded.load() && end.recorded.load()) return;
  plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, backend + ": event_elapsed_time: the " +
                                                   (start.recorded.load() ? "end" : "start") +
                                                   " event was never recorded");
}

// Copies `text` into a fixed char array, truncating, always NUL-terminated.
template <size_t N>
void copy_text(char (&out)[N], const char* text) {
  const size_t n = text != nullptr ? strnlen(text, N - 1) : 0;
  if (n > 0) std::memcpy(out, text, n);
  out[n] = '\0';
}

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_DEVICE_OBJECTS_H_
