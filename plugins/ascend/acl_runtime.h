// The loaded AscendCL runtime of one backend instance: its symbol table,
// initialization, and the per-device contexts calls run in.
//
// AscendCL binds work to the calling thread's current context. This backend
// uses each device's default context (the one aclrtSetDevice creates, shared
// with frameworks such as torch_npu) and switches to it only for the duration
// of a call (DeviceScope), restoring the caller's context afterwards, so it
// never changes the current device of threads it does not own (PLUGIN_RULES 11).
#ifndef OMNIRT_PLUGINS_ASCEND_ACL_RUNTIME_H_
#define OMNIRT_PLUGINS_ASCEND_ACL_RUNTIME_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl_api.h"
#include "omnirt_plugin_common/dynamic_library.h"
#include "omnirt_plugin_common/once.h"
#include "omnirt_plugin_common/peer_access.h"
#include "omnirt_plugin_common/symbol_table.h"

namespace omnirt::ascend {

OMNIRT_DEFINE_SYMBOL_TABLE(AclSymbols, OMNIRT_ACL_SYMBOLS)

class AclRuntime {
 public:
  // Resolves the symbols, initializes AscendCL (aclInit with `config_path`,
  // "" for none) and counts devices. Throws UNAVAILABLE with the runtime's own
  // error text when any step fails.
  AclRuntime(plugin_common::DynamicLibrary library, const std::string& config_path);
  // Resets the devices it opened and finalizes AscendCL if it initialized it.
  ~AclRuntime();
  AclRuntime(const AclRuntime&) = delete;
  AclRuntime& operator=(const AclRuntime&) = delete;

  const AclSymbols& api() const noexcept { return api_; }
  const plugin_common::SymbolResolver& symbols() const noexcept { return symbols_; }
  const std::string& library_path() const noexcept { return library_.path(); }
  int32_t device_count() const noexcept { return device_count_; }
  // OMNIRT_FEATURE_* bits this library or machine cannot provide.
  uint64_t lost_features() const;
  const plugin_common::PeerAccess& peers() const noexcept { return peers_; }
  // Enables peer access between two devices, both ways, once. A refusal is
  // only logged: someone else may have enabled it already, and the copy that
  // follows reports what really fails.
  void enable_peer_access(int32_t a, int32_t b);

  // Throws the mapped Error, with the vendor's message, unless code is success.
  void check(aclError code, const char* call) const;
  // Clears the thread's pending vendor message after a failure we tolerate, so
  // it is not reported with a later, unrelated one.
  void forget_error_text() const;

  // Throws OUT_OF_RANGE unless 0 <= device < device_count().
  void check_device(int32_t device) const;

  // Makes `device`'s context current on this thread until destroyed, then
  // restores the thread's previous context. Opens the device on first use.
  class DeviceScope {
   public:
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;
    ~DeviceScope();

   private:
    friend class AclRuntime;
    DeviceScope(const AclRuntime& runtime, aclrtContext context);
    const AclRuntime& runtime_;
    aclrtContext previous_ = nullptr;
    bool switched_ = false;
  };
  DeviceScope on_device(int32_t device);

 private:
  class InitToken;
  void open_device(int32_t device);

  plugin_common::DynamicLibrary library_;
  AclSymbols api_;
  plugin_common::SymbolResolver symbols_;
  std::unique_ptr<InitToken> init_;
  int32_t device_count_ = 0;
  // Per device, written once by open_device under the device's Once: its
  // default context, and how many aclrtSetDevice references we hold.
  std::vector<aclrtContext> contexts_;
  std::vector<int> set_device_calls_;
  std::unique_ptr<plugin_common::Once[]> opened_;
  plugin_common::PeerAccess peers_;
  std::mutex peer_mutex_;
  std::vector<bool> peer_enabled_;  // per unordered pair, under peer_mutex_
};

}  // namespace omnirt::ascend

#endif  // OMNIRT_PLUGINS_ASCEND_ACL_RUNTIME_H_
