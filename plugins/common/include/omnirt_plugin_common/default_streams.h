// The handles stream_get_default (ABI 1.1) hands out, for a runtime whose
// default stream is its null stream handle (CUDA's legacy stream, AscendCL's
// default stream, CNRT's default queue of the device in use): one DeviceStream
// per device holding that null vendor handle and the device, so that every
// stream slot takes it as it takes a created stream and makes its device
// current. They live as long as the backend; stream_destroy refuses them.
#ifndef OMNIRT_PLUGIN_COMMON_DEFAULT_STREAMS_H_
#define OMNIRT_PLUGIN_COMMON_DEFAULT_STREAMS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/device_objects.h"
#include "omnirt_plugin_common/once.h"

namespace omnirt::plugin_common {

template <class VendorHandle>
class DefaultStreams {
 public:
  using Stream = DeviceStream<VendorHandle>;

  // `backend` names the handles in errors: "ascend".
  explicit DefaultStreams(const char* backend) : backend_(backend) {}

  // The handle of `device`'s default stream; the objects are made on the
  // first call, for `device_count` devices. OUT_OF_RANGE for another device.
  omnirt_stream* handle(int32_t device, int32_t device_count) {
    made_([&] {
      for (int32_t d = 0; d < device_count; ++d) {
        streams_.push_back(std::make_shared<Stream>(Stream{VendorHandle{}, d}));
      }
    });
    if (device < 0 || static_cast<size_t>(device) >= streams_.size()) {
      plugin::fail(OMNIRT_STATUS_OUT_OF_RANGE, std::string(backend_) + ": device " +
                                                   std::to_string(device) + " does not exist");
    }
    return reinterpret_cast<omnirt_stream*>(streams_[static_cast<size_t>(device)].get());
  }

  // The default stream `stream` names, or nullptr when it names none (NULL, a
  // created stream, or no default stream was asked for yet).
  std::shared_ptr<Stream> find(omnirt_stream* stream) const {
    if (stream == nullptr || !made_.done()) return nullptr;
    for (const auto& s : streams_) {
      if (reinterpret_cast<omnirt_stream*>(s.get()) == stream) return s;
    }
    return nullptr;
  }

  // INVALID_ARGUMENT when `stream` is a default stream: it belongs to the runtime.
  void refuse_destroy(omnirt_stream* stream) const {
    if (find(stream) == nullptr) return;
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 std::string(backend_) +
                     ": stream_destroy: the default stream (from stream_get_default) is the "
                     "runtime's and cannot be destroyed");
  }

 private:
  const char* const backend_;
  Once made_;  // fills streams_, which never changes afterwards
  std::vector<std::shared_ptr<Stream>> streams_;
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_DEFAULT_STREAMS_H_
