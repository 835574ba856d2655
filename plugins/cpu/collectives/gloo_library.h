// The plugin's handle on libomnirt_cpu_gloo.so: found next to the plugin's
// own file, dlopened on the first communicator only, its table checked once
// (plugin_common/companion_library.h).
#ifndef OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_LIBRARY_H_
#define OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_LIBRARY_H_

#include "gloo_api.h"
#include "omnirt_plugin_common/companion_library.h"

namespace omnirt::cpu {

inline const plugin_common::Companion kGlooCompanion{
    "cpu",
    "the gloo collectives library",
    "collectives",
    OMNIRT_CPU_GLOO_FILE,
    OMNIRT_CPU_GLOO_SYMBOL,
    OMNIRT_CPU_GLOO_API_VERSION,
    "(it is built only where gloo is found: Debian's libgloo-dev)"};

using GlooLibrary = plugin_common::CompanionLibrary<omnirt_cpu_gloo_api>;

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_LIBRARY_H_
