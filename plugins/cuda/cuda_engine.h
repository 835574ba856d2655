// The plugin's side of the TorchScript engine (engine/engine_api.h): found
// next to the plugin, dlopened on the first module load only. Without the
// engine file (no CUDA libtorch at build time) the backend reports no module
// formats and the MODULES/COMPILE bits stay clear.
#ifndef OMNIRT_PLUGINS_CUDA_CUDA_ENGINE_H_
#define OMNIRT_PLUGINS_CUDA_CUDA_ENGINE_H_

#include <string>

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
  /// {"torchscript"} when present, none otherwise.
  void formats(const char* const** formats, size_t* count) const;
  /// Throws NOT_SUPPORTED for a format other than "torchscript", or when the
  /// engine is not there.
  void check_format(const char* format) const;
  /// The engine's table; loads it on first use. Throws UNAVAILABLE when it
  /// cannot be loaded (e.g. libtorch missing at run time).
  const omnirt_cuda_engine_api& api();

 private:
  std::string path_;
  bool present_ = false;
  plugin_common::Once once_;
  const omnirt_cuda_engine_api* api_ = nullptr;
  std::string error_;
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_ENGINE_H_
