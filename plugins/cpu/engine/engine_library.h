// The plugin's handle on libomnirt_cpu_engine.so: found next to the plugin's
// own file, dlopened on first use only (probing must not pay libtorch's load),
// its table checked once.
#ifndef OMNIRT_PLUGINS_CPU_ENGINE_ENGINE_LIBRARY_H_
#define OMNIRT_PLUGINS_CPU_ENGINE_ENGINE_LIBRARY_H_

#include <mutex>
#include <string>

#include "engine_api.h"

namespace omnirt::cpu {

class EngineLibrary {
 public:
  // The engine that belongs to the plugin holding this code: OMNIRT_CPU_ENGINE_FILE
  // in the plugin's folder (found with dladdr, so it works wherever the
  // plugin was installed or copied to).
  EngineLibrary();
  explicit EngineLibrary(std::string path);
  ~EngineLibrary();
  EngineLibrary(const EngineLibrary&) = delete;
  EngineLibrary& operator=(const EngineLibrary&) = delete;

  // Cheap, for capabilities: the file exists and no load of it has failed.
  bool usable() const;
  // The engine's table when it is loaded, else nullptr (loads nothing).
  const omnirt_cpu_engine_api* loaded() const;
  // The engine's table, loading the library on the first call. Throws
  // NOT_SUPPORTED when the engine is not installed, UNAVAILABLE when it does
  // not load (its libtorch missing), INCOMPATIBLE for a foreign table; a
  // failed load is not retried.
  const omnirt_cpu_engine_api& api();

 private:
  void load_locked();

  const std::string path_;
  mutable std::mutex mutex_;
  void* handle_ = nullptr;
  const omnirt_cpu_engine_api* api_ = nullptr;
  omnirt_status failure_ = OMNIRT_STATUS_OK;
  std::string failure_message_;
};

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_ENGINE_ENGINE_LIBRARY_H_
