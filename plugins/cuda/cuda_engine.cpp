#include "cuda_engine.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "cuda_backend.h"
#include "cuda_stream.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cuda {
namespace {

using plugin::fail;

const char* const kFormats[] = {"torchscript"};
constexpr size_t kMessageCapacity = 2048;

// This plugin's own folder, where the engine is installed beside it.
std::string plugin_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&plugin_dir), &info) == 0 || info.dli_fname == nullptr) {
    return ".";
  }
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// What an omnirt_executable is: the engine's module and the device it was
// loaded on, which a run's stream must be of.
struct Executable {
  omnirt_cuda_engine_module* module;
  int32_t device;
};

Executable* executable_of(omnirt_executable* e) { return reinterpret_cast<Executable*>(e); }

// libtorch's warnings reach the host's log (and the run report of the call).
void log_engine_warning(const char* message) {
  plugin::log(OMNIRT_LOG_WARN, std::string("libtorch: ") + message);
}

}  // namespace

Engine::Engine()
    : path_(plugin_dir() + "/" OMNIRT_CUDA_ENGINE_FILE),
      present_(access(path_.c_str(), R_OK) == 0) {}

void Engine::formats(const char* const** formats, size_t* count) const {
  *formats = present_ ? kFormats : nullptr;
  *count = present_ ? 1 : 0;
}

const omnirt_cuda_engine_api& Engine::api() {
  once_([this] {
    // Never dlclosed: libtorch cannot be unloaded, and the deleters of the
    // outputs a caller still holds live in the engine.
    void* library = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      error_ = std::string("cannot load the TorchScript engine: ") + dlerror();
      return;
    }
    auto get =
        reinterpret_cast<omnirt_cuda_engine_get_fn>(dlsym(library, OMNIRT_CUDA_ENGINE_SYMBOL));
    const omnirt_cuda_engine_api* api = get != nullptr ? get() : nullptr;
    if (api == nullptr || api->struct_size < sizeof(omnirt_cuda_engine_api) ||
        api->api_version != OMNIRT_CUDA_ENGINE_API_VERSION) {
      error_ = path_ + " is not a cuda engine of API version " +
               std::to_string(OMNIRT_CUDA_ENGINE_API_VERSION);
      return;
    }
    api->set_warning_sink(&log_engine_warning);
    api_ = api;
  });
  if (api_ == nullptr) fail(OMNIRT_STATUS_UNAVAILABLE, "cuda: " + error_);
  return *api_;
}

// NOT_SUPPORTED unless `format` is one the engine, which must be there, loads.
void Engine::check_format(const char* format) const {
  if (format == nullptr || std::strcmp(format, "torchscript") != 0) {
    fail(OMNIRT_STATUS_NOT_SUPPORTED, std::string("backend 'cuda' does not load module format '") +
                                          (format ? format : "(null)") +
                                          "' (it loads: torchscript)");
  }
  if (!present_) {
    fail(OMNIRT_STATUS_NOT_SUPPORTED,
         "backend 'cuda' has no TorchScript engine: " OMNIRT_CUDA_ENGINE_FILE
         " was not built (no CUDA-enabled libtorch found at build time)");
  }
}

std::string CudaBackend::engine_prepare(const char* format) {
  engine_.check_format(format);
  cuda();  // CUDA must run here before libtorch is loaded
  return engine_.api().engine_version;
}

omnirt_executable* CudaBackend::module_load(int32_t device, const omnirt_module_source& source,
                                            int32_t tier, const char* tag) {
  engine_.check_format(source.format);
  checked_device(device);  // CUDA must run here before libtorch is loaded
  char message[kMessageCapacity];
  message[0] = '\0';
  auto executable = std::make_unique<Executable>(Executable{nullptr, device});
  const omnirt_status status = engine_.api().load(source.data, source.size, source.path, tier,
                                                  device, &executable->module, message,
                                                  sizeof message);
  if (status != OMNIRT_STATUS_OK) {
    fail(status,
         std::string("cuda engine") + (tag ? std::string(" (") + tag + ")" : "") + ": " + message);
  }
  return reinterpret_cast<omnirt_executable*>(executable.release());
}

void CudaBackend::executable_run(omnirt_executable* executable, const DLTensor* inputs,
                                 size_t num_inputs, omnirt_stream* stream,
                                 DLManagedTensor** outputs, size_t output_capacity,
                                 size_t* num_outputs) {
  if (executable == nullptr) fail(OMNIRT_STATUS_INVALID_ARGUMENT, "executable: NULL");
  const Executable& exe = *executable_of(executable);
  if (stream != nullptr && stream_of(stream)->device != exe.device) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, "stream: on device " +
                                             std::to_string(stream_of(stream)->device) +
                                             ", the executable on device " +
                                             std::to_string(exe.device));
  }
  char message[kMessageCapacity];
  message[0] = '\0';
  const omnirt_status status =
      engine_.api().run(exe.module, inputs, num_inputs, cuda_stream(stream), outputs,
                        output_capacity, num_outputs, message, sizeof message);
  if (status != OMNIRT_STATUS_OK) fail(status, std::string("cuda engine: ") + message);
}

const char* CudaBackend::output_name(omnirt_executable* executable, const DLManagedTensor* output) {
  if (executable == nullptr) fail(OMNIRT_STATUS_INVALID_ARGUMENT, "executable: NULL");
  char message[kMessageCapacity];
  message[0] = '\0';
  const char* name = nullptr;
  const omnirt_status status =
      engine_.api().output_name(executable_of(executable)->module, output, &name, message,
                                sizeof message);
  if (status != OMNIRT_STATUS_OK) fail(status, std::string("cuda engine: ") + message);
  return name;
}

void CudaBackend::executable_destroy(omnirt_executable* executable) {
  if (executable == nullptr) return;
  std::unique_ptr<Executable> exe(executable_of(executable));
  engine_.api().destroy(exe->module);
}

}  // namespace omnirt::cuda
