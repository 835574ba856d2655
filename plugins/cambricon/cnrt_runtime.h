// The loaded CNRT runtime of one backend instance: its symbol table and the
// device selection calls run under.
//
// CNRT binds work to the calling thread's current device (cnrtSetDevice). The
// backend selects a device only for the duration of a call (DeviceScope) and
// puts the caller's device back afterwards, so it never changes the current
// device of threads it does not own (PLUGIN_RULES 11). CNRT has no explicit
// initialization since CNRT 5: the first call initializes it.
#ifndef OMNIRT_PLUGINS_CAMBRICON_CNRT_RUNTIME_H_
#define OMNIRT_PLUGINS_CAMBRICON_CNRT_RUNTIME_H_

#include <cstdint>
#include <string>

#include "cnrt_api.h"
#include "omnirt_plugin_common/dynamic_library.h"
#include "omnirt_plugin_common/peer_access.h"
#include "omnirt_plugin_common/symbol_table.h"

namespace omnirt::cambricon {

OMNIRT_DEFINE_SYMBOL_TABLE(CnrtSymbols, OMNIRT_CNRT_SYMBOLS)

class CnrtRuntime {
 public:
  // Resolves the symbols and counts devices. Throws UNAVAILABLE with CNRT's
  // own error text when either fails.
  explicit CnrtRuntime(plugin_common::DynamicLibrary library);
  CnrtRuntime(const CnrtRuntime&) = delete;
  CnrtRuntime& operator=(const CnrtRuntime&) = delete;

  const CnrtSymbols& api() const noexcept { return api_; }
  const plugin_common::SymbolResolver& symbols() const noexcept { return symbols_; }
  const std::string& library_path() const noexcept { return library_.path(); }
  int32_t device_count() const noexcept { return device_count_; }
  // OMNIRT_FEATURE_* bits this library or machine cannot provide.
  uint64_t lost_features() const;
  const plugin_common::PeerAccess& peers() const noexcept { return peers_; }

  // Throws the mapped Error, with CNRT's message, unless code is cnrtSuccess.
  void check(cnrtRet_t code, const char* call) const;
  // Throws OUT_OF_RANGE unless 0 <= device < device_count().
  void check_device(int32_t device) const;

  // Makes `device` current on this thread until destroyed, then restores the
  // thread's previous device.
  class DeviceScope {
   public:
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;
    ~DeviceScope();

   private:
    friend class CnrtRuntime;
    DeviceScope(const CnrtRuntime& runtime, int32_t device);
    const CnrtRuntime& runtime_;
    int previous_ = -1;
  };
  DeviceScope on_device(int32_t device) const;

 private:
  plugin_common::DynamicLibrary library_;
  CnrtSymbols api_;
  plugin_common::SymbolResolver symbols_;
  int32_t device_count_ = 0;
  plugin_common::PeerAccess peers_;
};

}  // namespace omnirt::cambricon

#endif  // OMNIRT_PLUGINS_CAMBRICON_CNRT_RUNTIME_H_
