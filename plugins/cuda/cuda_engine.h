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
  /// cannot be loaded (e.g. libtorch missing at run time).
  const omnirt_cuda_engine_api& api();

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
  std::string error_;
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_ENGINE_H_
