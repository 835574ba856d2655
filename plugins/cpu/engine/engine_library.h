// The plugin's handle on libomnirt_cpu_engine.so: found next to the plugin's
// own file, dlopened on first use only (probing must not pay libtorch's load),
// its table checked once (plugin_common/companion_library.h).
#ifndef OMNIRT_PLUGINS_CPU_ENGINE_ENGINE_LIBRARY_H_
#define OMNIRT_PLUGINS_CPU_ENGINE_ENGINE_LIBRARY_H_

#include "engine_api.h"
#include "omnirt_plugin_common/companion_library.h"

namespace omnirt::cpu {

inline const plugin_common::Companion kEngineCompanion{
    "cpu",
    "the TorchScript engine",
    "modules",
    OMNIRT_CPU_ENGINE_FILE,
    OMNIRT_CPU_ENGINE_SYMBOL,
    OMNIRT_CPU_ENGINE_API_VERSION,
    "(it is built only where libtorch is found, with OMNIRT_BUILD_TORCH_ENGINES=ON)"};

using EngineLibrary = plugin_common::CompanionLibrary<omnirt_cpu_engine_api>;

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_ENGINE_ENGINE_LIBRARY_H_
