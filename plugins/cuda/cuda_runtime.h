// Lazy loading of the CUDA runtime, and the cheap availability answer that
// needs no loading at all (PLUGIN_RULES 4 and 5). One Runtime per backend
// instance: dlopen reference-counts, so instances stay independent (rule 10).
#ifndef OMNIRT_PLUGINS_CUDA_CUDA_RUNTIME_H_
#define OMNIRT_PLUGINS_CUDA_CUDA_RUNTIME_H_

#include <string>

#include "cuda_symbols.h"
#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/dynamic_library.h"
#include "omnirt_plugin_common/once.h"

namespace omnirt::cuda {

class Runtime {
 public:
  Runtime() = default;
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /// Before the first real use: are the driver and the runtime files there?
  /// After it: did initialization succeed (the runtime's own error text if not)?
  plugin::Availability availability() const;

  /// The symbol table; loads libcudart and counts devices on first use.
  /// Throws UNAVAILABLE with the reason when CUDA cannot run here.
  const Symbols& get();

  /// Devices visible to the runtime; loads it; 0 when CUDA cannot run here.
  /// Inline: every device call asks.
  int device_count() {
    once_([this] { initialize(); });
    return device_count_;
  }

  /// Devices seen so far, without loading anything (0 before the first use).
  int known_device_count() const { return once_.done() ? device_count_ : 0; }

 private:
  void initialize();

  plugin_common::Once once_;
  plugin_common::DynamicLibrary library_;
  Symbols symbols_;
  int device_count_ = 0;
  std::string error_;  // why CUDA cannot run here; empty when it can
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_RUNTIME_H_
