#include "acl_runtime.h"

#include <algorithm>
#include <map>
#include <utility>

#include "acl_status.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::ascend {

// AscendCL is initialized once per process, and several hosts may each hold an
// instance of this backend next to a framework that uses AscendCL itself. The
// first aclInit that succeeds owns the initialization; it is finalized when the
// last instance that shares it goes. An aclInit answered "already initialized"
// belongs to someone else and is never finalized here. Keyed by the aclInit
// entry point, so two different libascendcl.so files do not share a count.
class AclRuntime::InitToken {
 public:
  InitToken(const AclRuntime& runtime, const std::string& config_path) : runtime_(runtime) {
    std::lock_guard<std::mutex> lock(mutex());
    Entry& entry = entries()[key()];
    if (entry.users == 0) {
      const aclError rc = runtime.api_.aclInit(config_path.empty() ? nullptr : config_path.c_str());
      if (rc != ACL_SUCCESS && rc != ACL_ERROR_REPEAT_INITIALIZE) {
        entries().erase(key());
        runtime.check(rc, "aclInit");
      }
      entry.owned = rc == ACL_SUCCESS;
    }
    ++entry.users;
  }

  ~InitToken() {
    std::lock_guard<std::mutex> lock(mutex());
    auto it = entries().find(key());
    if (--it->second.users > 0) return;
    if (it->second.owned && runtime_.api_.aclFinalize() != ACL_SUCCESS) {
      plugin::log(OMNIRT_LOG_WARN, "aclFinalize failed while destroying the ascend backend");
    }
    entries().erase(it);
  }

 private:
  struct Entry {
    int users = 0;
    bool owned = false;
  };
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::map<void*, Entry>& entries() {
    static std::map<void*, Entry> e;
    return e;
  }
  void* key() const { return reinterpret_cast<void*>(runtime_.api_.aclInit); }

  const AclRuntime& runtime_;
};

AclRuntime::AclRuntime(plugin_common::DynamicLibrary library, const std::string& config_path)
    : library_(std::move(library)), symbols_(library_) {
  api_.resolve(symbols_);
  const std::string missing = symbols_.missing_required();
  if (!missing.empty()) {
    plugin::fail(OMNIRT_STATUS_UNAVAILABLE, library_.path() + " lacks required AscendCL symbols " +
                                                missing + " (not libascendcl.so, or CANN too old)");
  }
  init_ = std::make_unique<InitToken>(*this, config_path);
  uint32_t count = 0;
  check(api_.aclrtGetDeviceCount(&count), "aclrtGetDeviceCount");
  device_count_ = static_cast<int32_t>(count);
  contexts_.assign(count, nullptr);
  set_device_calls_.assign(count, 0);
  opened_ = std::make_unique<plugin_common::Once[]>(count);
  if (symbols_.missing_for(OMNIRT_FEATURE_PEER_COPY).empty()) {
    // A pair the query fails for counts as unreachable, not as a broken runtime.
    peers_ = plugin_common::PeerAccess(device_count_, [this](int32_t from, int32_t to) {
      int32_t can = 0;
      if (api_.aclrtDeviceCanAccessPeer(&can, from, to) == ACL_SUCCESS) return can == 1;
      forget_error_text();
      return false;
    });
  }
  peer_enabled_.assign(count * count, false);
}

AclRuntime::~AclRuntime() {
  // Each successful aclrtSetDevice took a reference on the device; give them
  // back so AscendCL releases the device once no one else holds it.
  for (int32_t device = 0; device < device_count_; ++device) {
    for (int calls = set_device_calls_[device]; calls > 0; --calls) {
      if (api_.aclrtResetDevice(device) != ACL_SUCCESS) {
        plugin::log(OMNIRT_LOG_WARN,
                    "aclrtResetDevice(" + std::to_string(device) + ") failed at backend destroy");
      }
    }
  }
}

uint64_t AclRuntime::lost_features() const {
  return symbols_.missing_features() | (peers_.every_pair() ? 0 : OMNIRT_FEATURE_PEER_COPY);
}

void AclRuntime::enable_peer_access(int32_t a, int32_t b) {
  std::lock_guard<std::mutex> lock(peer_mutex_);
  const size_t pair = static_cast<size_t>(std::min(a, b)) * device_count_ + std::max(a, b);
  if (peer_enabled_[pair]) return;
  for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    auto scope = on_device(from);
    if (api_.aclrtDeviceEnablePeerAccess(to, 0) != ACL_SUCCESS) {
      forget_error_text();
      plugin::log(OMNIRT_LOG_DEBUG, "aclrtDeviceEnablePeerAccess(" + std::to_string(to) +
                                        ") on device " + std::to_string(from) + " refused");
    }
  }
  peer_enabled_[pair] = true;
}

void AclRuntime::check(aclError code, const char* call) const {
  if (code == ACL_SUCCESS) return;
  std::string text;
  if (api_.aclGetRecentErrMsg != nullptr) {
    if (const char* message = api_.aclGetRecentErrMsg()) text = message;
  }
  plugin_common::fail_vendor("ascend", call, acl_status(code), text);
}

void AclRuntime::forget_error_text() const {
  if (api_.aclGetRecentErrMsg != nullptr) api_.aclGetRecentErrMsg();
}

void AclRuntime::check_device(int32_t device) const {
  if (device < 0 || device >= device_count_) {
    plugin::fail(OMNIRT_STATUS_OUT_OF_RANGE, "ascend: device " + std::to_string(device) +
                                                 " out of range [0, " +
                                                 std::to_string(device_count_) + ")");
  }
}

AclRuntime::DeviceScope AclRuntime::on_device(int32_t device) {
  check_device(device);
  opened_[device]([&] { open_device(device); });
  return DeviceScope(*this, contexts_[device]);
}

// aclrtSetDevice creates the device's default context and makes it current;
// the context is kept and the caller's own context put back.
void AclRuntime::open_device(int32_t device) {
  aclrtContext previous = nullptr;
  if (api_.aclrtGetCurrentContext(&previous) != ACL_SUCCESS) {
    previous = nullptr;
    forget_error_text();
  }
  check(api_.aclrtSetDevice(device), "aclrtSetDevice");
  ++set_device_calls_[device];
  aclrtContext context = nullptr;
  const aclError rc = api_.aclrtGetCurrentContext(&context);
  if (previous != nullptr) api_.aclrtSetCurrentContext(previous);
  check(rc, "aclrtGetCurrentContext");
  contexts_[device] = context;
}

AclRuntime::DeviceScope::DeviceScope(const AclRuntime& runtime, aclrtContext context)
    : runtime_(runtime) {
  if (runtime.api_.aclrtGetCurrentContext(&previous_) != ACL_SUCCESS) {
    previous_ = nullptr;
    runtime.forget_error_text();
  }
  if (previous_ == context) return;
  runtime.check(runtime.api_.aclrtSetCurrentContext(context), "aclrtSetCurrentContext");
  switched_ = true;
}

AclRuntime::DeviceScope::~DeviceScope() {
  // A thread that had no context keeps ours: there was nothing to restore.
  if (switched_ && previous_ != nullptr) runtime_.api_.aclrtSetCurrentContext(previous_);
}

}  // namespace omnirt::ascend
