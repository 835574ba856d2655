// The plugin's side of its engine (engine/engine_api.h): found next to the
// plugin, dlopened on the first module load only. The engine loads
// TorchScript, and AOTInductor packages (format "aoti") where it was built
// against a libtorch with AOTInductor. What it can load, and why not the
// rest, is known from the build and the engine file's presence, without
// loading it: without the engine file (no CUDA libtorch at build time) the
// backend reports no module formats and the MODULES/COMPILE bits stay clear.
#ifndef OMNIRT_PLUGINS_CUDA_CUDA_ENGINE_H_
#define OMNIRT_PLUGINS_CUDA_CUDA_ENGINE_H_

#include <string>
#include <vector>

#include "engine/engine_api.h"
#include "omnirt_plugin_common/once.h"

namespace omnirt::cuda {

class Engine {
 public:
  Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Is the engine file there? Cheap: loads nothing.
  bool present() const { return present_; }
  /// Fills the module formats of `caps`: those the engine loads, and those it
  /// cannot with the reason. The arrays live as long as this object.
  void describe(omnirt_capabilities& caps) const;
  /// Why `format` cannot be loaded here (NOT_SUPPORTED, naming what is
  /// missing); returns when it can.
  void require_format(const char* format) const;
  /// The engine's table; loads it on first use. Throws UNAVAILABLE when it
  /// cannot be loaded (e.g. libtorch missing at run time). An engine of API
  /// version 2 is taken too: its table ends before the memory functions
  /// (memory() is then null).
  const omnirt_cuda_engine_api& api();

  /// The engine's table when it is loaded, else null; loads nothing.
  const omnirt_cuda_engine_api* loaded() const { return once_.done() ? api_ : nullptr; }
  /// The memory functions (version 3) of the loaded engine when its modules'
  /// memory can come from the backend's allocator, else null.
  const omnirt_cuda_engine_api* memory() const;
  /// Do the figures of the backend instance `context` include its modules'
  /// memory (OMNIRT_STAT_MODULE_MEMORY)? Before the engine is loaded no
  /// module is, and the build says whether it will be; loads nothing.
  bool memory_counted(void* context) const;

 private:
  void add_unavailable(const char* format, std::string reason);

  static constexpr size_t kFormats = 2;  // torchscript, aoti
  std::string path_;
  bool present_ = false;
  std::vector<const char*> formats_;
  std::string reasons_[kFormats];  // what unavailable_'s reasons point into
  omnirt_module_format_unavailable unavailable_[kFormats] = {};
  size_t num_unavailable_ = 0;
  plugin_common::Once once_;
  const omnirt_cuda_engine_api* api_ = nullptr;
  uint32_t api_version_ = 0;
  std::string error_;
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_ENGINE_H_
