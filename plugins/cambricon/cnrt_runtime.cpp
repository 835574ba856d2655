#include "cnrt_runtime.h"

#include <utility>

#include "cnrt_status.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cambricon {

CnrtRuntime::CnrtRuntime(plugin_common::DynamicLibrary library)
    : library_(std::move(library)), symbols_(library_) {
  api_.resolve(symbols_);
  const std::string missing = symbols_.missing_required();
  if (!missing.empty()) {
    plugin::fail(OMNIRT_STATUS_UNAVAILABLE, library_.path() + " lacks required CNRT symbols " +
                                                missing +
                                                " (not libcnrt.so, or CNRT older than 5)");
  }
  unsigned int count = 0;
  check(api_.cnrtGetDeviceCount(&count), "cnrtGetDeviceCount");
  device_count_ = static_cast<int32_t>(count);
  if (symbols_.missing_for(OMNIRT_FEATURE_PEER_COPY).empty()) {
    // A pair the query fails for counts as unreachable, not as a broken runtime.
    peers_ = plugin_common::PeerAccess(device_count_, [this](int32_t from, int32_t to) {
      unsigned int can = 0;
      return api_.cnrtGetPeerAccessibility(&can, from, to) == cnrtSuccess && can == 1;
    });
  }
}

uint64_t CnrtRuntime::lost_features() const {
  return symbols_.missing_features() | (peers_.every_pair() ? 0 : OMNIRT_FEATURE_PEER_COPY);
}

void CnrtRuntime::check(cnrtRet_t code, const char* call) const {
  if (code == cnrtSuccess) return;
  std::string text;
  if (api_.cnrtGetErrorStr != nullptr) {
    if (const char* message = api_.cnrtGetErrorStr(code)) text = message;
  }
  plugin_common::fail_vendor("cambricon", call, cnrt_status(code), text);
}

void CnrtRuntime::check_device(int32_t device) const {
  if (device < 0 || device >= device_count_) {
    plugin::fail(OMNIRT_STATUS_OUT_OF_RANGE, "cambricon: device " + std::to_string(device) +
                                                 " out of range [0, " +
                                                 std::to_string(device_count_) + ")");
  }
}

CnrtRuntime::DeviceScope CnrtRuntime::on_device(int32_t device) const {
  check_device(device);
  return DeviceScope(*this, device);
}

CnrtRuntime::DeviceScope::DeviceScope(const CnrtRuntime& runtime, int32_t device)
    : runtime_(runtime) {
  int current = -1;
  if (runtime.api_.cnrtGetDevice(&current) == cnrtSuccess && current == device) return;
  runtime.check(runtime.api_.cnrtSetDevice(device), "cnrtSetDevice");
  previous_ = current;
}

CnrtRuntime::DeviceScope::~DeviceScope() {
  if (previous_ >= 0) runtime_.api_.cnrtSetDevice(previous_);
}

}  // namespace omnirt::cambricon
