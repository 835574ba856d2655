#include "engine_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu {
namespace {

std::string engine_next_to_plugin() {
  Dl_info info{};
  static const int anchor = 0;  // any object of this .so tells dladdr which file we are
  if (dladdr(&anchor, &info) == 0 || info.dli_fname == nullptr) return OMNIRT_CPU_ENGINE_FILE;
  const std::string self = info.dli_fname;
  const size_t slash = self.rfind('/');
  return (slash == std::string::npos ? std::string() : self.substr(0, slash + 1)) +
         OMNIRT_CPU_ENGINE_FILE;
}

}  // namespace

EngineLibrary::EngineLibrary() : EngineLibrary(engine_next_to_plugin()) {}

EngineLibrary::EngineLibrary(std::string path) : path_(std::move(path)) {}

EngineLibrary::~EngineLibrary() {
  // RTLD_NODELETE keeps the code mapped: outputs already handed out still
  // call their deleters in it, and libtorch does not survive an unload.
  if (handle_ != nullptr) dlclose(handle_);
}

bool EngineLibrary::usable() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_ == OMNIRT_STATUS_OK && (api_ != nullptr || access(path_.c_str(), R_OK) == 0);
}

const omnirt_cpu_engine_api* EngineLibrary::loaded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return api_;
}

const omnirt_cpu_engine_api& EngineLibrary::api() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (api_ == nullptr && failure_ == OMNIRT_STATUS_OK) load_locked();
  if (api_ == nullptr) plugin::fail(failure_, failure_message_);
  return *api_;
}

void EngineLibrary::load_locked() {
  auto refuse = [this](omnirt_status status, const std::string& message) {
    failure_ = status;
    failure_message_ = "cpu: " + message;
  };
  if (access(path_.c_str(), R_OK) != 0) {
    return refuse(OMNIRT_STATUS_NOT_SUPPORTED,
                  "modules are not supported: the TorchScript engine " + path_ +
                      " is not installed (it is built only where libtorch is found, with "
                      "OMNIRT_BUILD_TORCH_ENGINES=ON)");
  }
  handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle_ == nullptr) {
    return refuse(OMNIRT_STATUS_UNAVAILABLE,
                  std::string("cannot load the TorchScript engine: ") + dlerror());
  }
  auto get = reinterpret_cast<omnirt_cpu_engine_get_fn>(dlsym(handle_, OMNIRT_CPU_ENGINE_SYMBOL));
  const omnirt_cpu_engine_api* api = get != nullptr ? get() : nullptr;
  if (api == nullptr || api->struct_size < sizeof(omnirt_cpu_engine_api) ||
      api->api_version != OMNIRT_CPU_ENGINE_API_VERSION) {
    return refuse(OMNIRT_STATUS_INCOMPATIBLE,
                  path_ + " is not a TorchScript engine for this plugin (needs " +
                      OMNIRT_CPU_ENGINE_SYMBOL + " with API version " +
                      std::to_string(OMNIRT_CPU_ENGINE_API_VERSION) + ")");
  }
  api_ = api;
}

}  // namespace omnirt::cpu
