// Modules on the cpu backend: TorchScript run by the engine library, which is
// loaded on the first module_load, never at create or capabilities.
#ifndef OMNIRT_PLUGINS_CPU_ENGINE_CPU_MODULES_H_
#define OMNIRT_PLUGINS_CPU_ENGINE_CPU_MODULES_H_

#include <cstdint>

#include "engine_library.h"
#include "memory_ledger.h"
#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/handle_registry.h"
#include "omnirt_plugin_common/once.h"

namespace omnirt::cpu {

struct CpuExecutable;

class CpuModules {
 public:
  // Reads backend option `threads`: libtorch's thread count, default the
  // machine's cores. Throws INVALID_ARGUMENT for a value that is not 1..4096.
  // What libtorch allocates for the modules is counted into `ledger`.
  CpuModules(const plugin::Options& options, MemoryLedger& ledger);

  int32_t threads() const { return threads_; }
  // Sets MODULES, COMPILE, OUTPUT_NAMES and ENGINE_PREPARE and lists
  // "torchscript" while the engine is usable; lists "aoti" as unavailable,
  // with the reason.
  void describe(omnirt_capabilities& caps) const;

  // Loads the engine of `format` now (engine_prepare); what it is.
  std::string prepare(const char* format);

  // Sets OMNIRT_STAT_MODULE_MEMORY in `stats` when the modules' memory is in
  // the ledger's figures: always before the engine is loaded (there is none
  // yet), and while libtorch allocates through the engine's counting allocator.
  void describe_memory(omnirt_memory_stats& stats) const;

  omnirt_executable* load(const omnirt_module_source& source, int32_t tier);
  void run(omnirt_executable* executable, const DLTensor* inputs, size_t num_inputs,
           DLManagedTensor** outputs, size_t output_capacity, size_t* num_outputs);
  // A dict output's key, or ""; owned by `output`.
  const char* output_name(omnirt_executable* executable, const DLManagedTensor* output);
  void destroy(omnirt_executable* executable);

 private:
  // The engine, loaded and given this instance's thread count (and the sink
  // of its warnings: the host's log) on first use.
  const omnirt_cpu_engine_api& engine();

  // Runs `call` with libtorch's allocations on this thread counted.
  template <class F>
  auto counted(const omnirt_cpu_engine_api& api, F&& call);

  EngineLibrary library_{kEngineCompanion};
  const omnirt_cpu_engine_ledger ledger_;
  const int32_t threads_;
  plugin_common::Once threads_applied_;
  plugin_common::HandleRegistry<CpuExecutable, omnirt_executable> executables_{"cpu", "executable"};
};

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_ENGINE_CPU_MODULES_H_
