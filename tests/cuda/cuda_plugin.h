// Loads libomnirt_backend_cuda.so the way the host does (dlopen, entry,
// negotiate, create) and drives its vtable directly, for the cuda tests and
// benchmarks. The plugin path arrives as OMNIRT_CUDA_PLUGIN_PATH from CMake.
#ifndef OMNIRT_TESTS_CUDA_CUDA_PLUGIN_H_
#define OMNIRT_TESTS_CUDA_CUDA_PLUGIN_H_

#include <dlfcn.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "omnirt/backend.h"

namespace omnirt::cuda_test {

// The message of the last failed slot on this thread (host services' set_error).
inline std::string& last_error() {
  thread_local std::string message;
  return message;
}

// The last line the plugin logged at WARN or above on this thread.
inline std::string& last_warning() {
  thread_local std::string message;
  return message;
}

inline const omnirt_host_services* host_services() {
  static const omnirt_host_services services = {
      sizeof(omnirt_host_services), OMNIRT_ABI_VERSION,
      [](omnirt_status status, int64_t, const char* message) {
        last_error() = message != nullptr ? message : "";
        return status;
      },
      [](int32_t level, const char*, const char* message) {
        if (level >= OMNIRT_LOG_WARN && level < OMNIRT_LOG_OFF) last_warning() = message ? message : "";
      }};
  return &services;
}

class CudaPlugin {
 public:
  using Options = std::vector<std::pair<std::string, std::string>>;
  // Options as key/value pairs, e.g. {{"allocator", "plain"}}.
  explicit CudaPlugin(const Options& options = {}) {
    library_ = dlopen(OMNIRT_CUDA_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) throw std::runtime_error(dlerror());
    auto entry = reinterpret_cast<omnirt_backend_entry_fn>(dlsym(library_, OMNIRT_BACKEND_ENTRY_SYMBOL));
    if (entry == nullptr) throw std::runtime_error("no entry symbol");
    const omnirt_backend_entry_args args = {sizeof args, OMNIRT_MAKE_VERSION(1, 0),
                                            OMNIRT_ABI_VERSION, host_services()};
    vt_ = entry(&args);
    if (vt_ == nullptr) throw std::runtime_error("entry refused: " + last_error());
    std::vector<const char*> keys, values;
    for (const auto& [k, v] : options) {
      keys.push_back(k.c_str());
      values.push_back(v.c_str());
    }
    const omnirt_backend_create_args create = {sizeof create, keys.data(), values.data(), keys.size()};
    create_status_ = vt_->create(&create, &state_);
  }
  ~CudaPlugin() {
    if (state_ != nullptr) vt_->destroy(state_);
    dlclose(library_);
  }
  CudaPlugin(const CudaPlugin&) = delete;
  CudaPlugin& operator=(const CudaPlugin&) = delete;

  const omnirt_backend_vtable* vt() const { return vt_; }
  omnirt_backend_state* state() const { return state_; }
  omnirt_status create_status() const { return create_status_; }

  // is_available's answer; `reason` gets the why-not.
  bool available(std::string* reason = nullptr) const {
    int32_t available = 0;
    char text[512] = "";
    vt_->is_available(state_, &available, text, sizeof text);
    if (reason != nullptr) *reason = text;
    return available != 0;
  }
  int32_t device_count() const {
    int32_t count = 0;
    vt_->get_device_count(state_, &count);
    return count;
  }

 private:
  void* library_ = nullptr;
  const omnirt_backend_vtable* vt_ = nullptr;
  omnirt_backend_state* state_ = nullptr;
  omnirt_status create_status_ = OMNIRT_STATUS_INTERNAL;
};

}  // namespace omnirt::cuda_test

#endif  // OMNIRT_TESTS_CUDA_CUDA_PLUGIN_H_
