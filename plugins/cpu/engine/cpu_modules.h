// Modules on the cpu backend: TorchScript run by the engine library, which is
// loaded on the first module_load, never at create or capabilities.
#ifndef OMNIRT_PLUGINS_CPU_ENGINE_CPU_MODULES_H_
#define OMNIRT_PLUGINS_CPU_ENGINE_CPU_MODULES_H_

#include <cstdint>

#include "engine_library.h"
#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/handle_registry.h"
#include "omnirt_plugin_common/once.h"

namespace omnirt::cpu {

struct CpuExecutable;

class CpuModules {
 public:
  // Reads backend option `threads`: libtorch's thread count, default the
  // machine's cores. Throws INVALID_ARGUMENT for a value that is not 1..4096.
  explicit CpuModules(const plugin::Options& options);

  int32_t threads() const { return threads_; }
  // Sets MODULES and COMPILE and lists "torchscript" while the engine is usable;
  // lists "aoti" as unavailable, with the reason.
  void describe(omnirt_capabilities& caps) const;

  omnirt_executable* load(const omnirt_module_source& source, int32_t tier);
  void run(omnirt_executable* executable, const DLTensor* inputs, size_t num_inputs,
           DLManagedTensor** outputs, size_t output_capacity, size_t* num_outputs);
  void destroy(omnirt_executable* executable);

 private:
  // The engine, loaded and given this instance's thread count on first use.
  const omnirt_cpu_engine_api& engine();

  EngineLibrary library_{kEngineCompanion};
  const int32_t threads_;
  plugin_common::Once threads_applied_;
  plugin_common::HandleRegistry<CpuExecutable, omnirt_executable> executables_{"cpu", "executable"};
};

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_ENGINE_CPU_MODULES_H_
