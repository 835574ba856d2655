#include "cuda_engine.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <memory>

#include "cuda_backend.h"
#include "cuda_stream.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cuda {
namespace {

using plugin::fail;

constexpr char kTorchScript[] = "torchscript";
constexpr char kAoti[] = "aoti";
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

// What an omnirt_executable is: the engine's module, the device it was
// loaded on (which a run's stream must be of) and its tag, for the log.
struct Executable {
  omnirt_cuda_engine_module* module;
  int32_t device;
  std::string tag;
};

Executable* executable_of(omnirt_executable* e) { return reinterpret_cast<Executable*>(e); }

// libtorch's warnings reach the host's log (and the run report of the call).
void log_engine_warning(const char* message) {
  plugin::log(OMNIRT_LOG_WARN, std::string("libtorch: ") + message);
}

}  // namespace

// The build says whether it made the engine, and whether with AOTInductor
// (plugins/cuda/engine/CMakeLists.txt): "" when it did.
Engine::Engine()
    : path_(plugin_dir() + "/" OMNIRT_CUDA_ENGINE_FILE),
      present_(access(path_.c_str(), R_OK) == 0) {
  const std::string built_without = OMNIRT_CUDA_ENGINE_UNAVAILABLE;
  const std::string aoti_missing = OMNIRT_CUDA_AOTI_UNAVAILABLE;
  if (present_) {
    formats_.push_back(kTorchScript);
    if (aoti_missing.empty()) {
      formats_.push_back(kAoti);
    } else {
      add_unavailable(kAoti, aoti_missing);
    }
  } else {
    const std::string why =
        built_without.empty()
            ? OMNIRT_CUDA_ENGINE_FILE " is not next to the plugin (" + path_ + ")"
            : built_without;
    add_unavailable(kTorchScript, why);
    add_unavailable(kAoti, aoti_missing.empty() ? why : aoti_missing);
  }
}

void Engine::add_unavailable(const char* format, std::string reason) {
  reasons_[num_unavailable_] = std::move(reason);
  unavailable_[num_unavailable_] = {format, reasons_[num_unavailable_].c_str()};
  ++num_unavailable_;
}

void Engine::describe(omnirt_capabilities& caps) const {
  caps.module_formats = formats_.empty() ? nullptr : formats_.data();
  caps.num_module_formats = formats_.size();
  caps.unavailable_module_formats = num_unavailable_ > 0 ? unavailable_ : nullptr;
  caps.num_unavailable_module_formats = num_unavailable_;
}

void Engine::require_format(const char* format) const {
  const std::string name = format != nullptr ? format : "(null)";
  for (size_t i = 0; i < num_unavailable_; ++i) {
    const omnirt_module_format_unavailable& u = unavailable_[i];
    if (name == u.format) {
      fail(OMNIRT_STATUS_NOT_SUPPORTED,
           "backend 'cuda' cannot load module format '" + name + "': " + u.reason);
    }
  }
  std::string loads;
  for (const char* f : formats_) {
    if (name == f) return;
    loads += (loads.empty() ? "" : ", ") + std::string(f);
  }
  fail(OMNIRT_STATUS_NOT_SUPPORTED, "backend 'cuda' does not load module format '" + name +
                                        "' (it loads: " + (loads.empty() ? "none" : loads) + ")");
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
    // Version 2 (the table up to set_warning_sink) still loads: its modules'
    // memory is then not counted.
    constexpr size_t kVersion2Size = offsetof(omnirt_cuda_engine_api, memory_unavailable);
    const bool v2 = api != nullptr && api->api_version == 2 && api->struct_size >= kVersion2Size;
    const bool v3 = api != nullptr && api->api_version == OMNIRT_CUDA_ENGINE_API_VERSION &&
                    api->struct_size >= sizeof(omnirt_cuda_engine_api);
    if (!v2 && !v3) {
      error_ = path_ + " is not a cuda engine of API version 2 or " +
               std::to_string(OMNIRT_CUDA_ENGINE_API_VERSION);
      return;
    }
    api->set_warning_sink(&log_engine_warning);
    api_version_ = api->api_version;
    api_ = api;
  });
  if (api_ == nullptr) fail(OMNIRT_STATUS_UNAVAILABLE, "cuda: " + error_);
  return *api_;
}

const omnirt_cuda_engine_api* Engine::memory() const {
  const omnirt_cuda_engine_api* api = loaded();
  return api != nullptr && api_version_ >= 3 && api->memory_unavailable == nullptr ? api : nullptr;
}

bool Engine::memory_counted(void* context) const {
  if (!present_) return false;
  const omnirt_cuda_engine_api* api = loaded();
  if (api == nullptr) return std::string(OMNIRT_CUDA_MEMORY_UNAVAILABLE).empty();
  if (api_version_ < 3) return false;
  return api->memory_counted(context, nullptr) != 0;
}

// The engine's callbacks into this backend's allocators (engine_api.h,
// omnirt_cuda_engine_memory). No exception may leave them: libtorch calls
// them with its allocator's lock held.
void* CudaBackend::engine_allocate(void* context, int32_t device, size_t size,
                                   void* stream) noexcept {
  try {
    return static_cast<CudaBackend*>(context)->allocator(device).allocate(
        size, static_cast<cudaStream_t>(stream));
  } catch (...) {
    return nullptr;  // libtorch reports it as out of memory
  }
}

void CudaBackend::engine_free(void* context, int32_t device, void* ptr) noexcept {
  try {
    // The engine synchronized the device: the default stream may reuse it at once.
    static_cast<CudaBackend*>(context)->allocator(device).free(ptr, nullptr);
  } catch (...) {
  }
}

void CudaBackend::detach_engine_memory() noexcept {
  const omnirt_cuda_engine_api* api = engine_.memory();
  if (api == nullptr) return;
  if (api->memory_detach(this) == 0) return;
  // Modules or outputs still hold memory of these allocators, and libtorch
  // frees it whenever they go, which may be after this instance and even
  // after this plugin is unloaded. The engine no longer calls back; the
  // allocators are leaked on purpose, so that the memory stays valid for
  // them until the process ends. What they only cache is released first.
  for (std::unique_ptr<DeviceAllocator>& allocator : allocators_) {
    if (allocator == nullptr) continue;
    try {
      allocator->reset_stats();
    } catch (...) {
    }
    (void)allocator.release();
  }
}

std::string CudaBackend::engine_prepare(const char* format) {
  engine_.require_format(format);
  cuda();  // CUDA must run here before libtorch is loaded
  return engine_.api().engine_version;
}

omnirt_executable* CudaBackend::module_load(int32_t device, const omnirt_module_source& source,
                                            int32_t tier, const char* tag) {
  engine_.require_format(source.format);
  checked_device(device);  // CUDA must run here before libtorch is loaded
  const omnirt_cuda_engine_api& api = engine_.api();
  const bool aoti = std::strcmp(source.format, kAoti) == 0;
  const auto load = aoti ? api.load_aoti : api.load;
  if (load == nullptr) {  // an engine file of another build than this plugin's
    fail(OMNIRT_STATUS_NOT_SUPPORTED,
         std::string("backend 'cuda' cannot load module format 'aoti': ") +
             (api.aoti_unavailable != nullptr ? api.aoti_unavailable : "the engine has no loader for it"));
  }
  char message[kMessageCapacity];
  message[0] = '\0';
  auto executable =
      std::make_unique<Executable>(Executable{nullptr, device, tag != nullptr ? tag : ""});
  // The module's memory (weights at load, what its runs allocate) comes from
  // this backend's allocators, where the engine can do that.
  const omnirt_cuda_engine_api* memory = engine_.memory();
  const void* previous = memory != nullptr ? memory->memory_scope_begin(&engine_memory_) : nullptr;
  const omnirt_status status =
      load(source.data, source.size, source.path, tier, device, &executable->module, message,
           sizeof message);
  if (memory != nullptr) memory->memory_scope_end(previous);
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
  // The engine's note on a run that went another way than its tier promises.
  if (message[0] != '\0') plugin::log(OMNIRT_LOG_WARN, "module '" + exe.tag + "': " + message);
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
