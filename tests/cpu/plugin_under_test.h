// Loads libomnirt_backend_cpu.so the way a host does (dlopen, entry symbol,
// negotiation) but with the test's own host services, so the plugin can be
// driven through its C vtable without libomnirt.
#ifndef OMNIRT_TESTS_CPU_PLUGIN_UNDER_TEST_H_
#define OMNIRT_TESTS_CPU_PLUGIN_UNDER_TEST_H_

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "omnirt/backend.h"

namespace omnirt::cpu::testing {

// What the plugin last reported through set_error on this thread.
struct RecordedError {
  omnirt_status status = OMNIRT_STATUS_OK;
  std::string message;
};

inline RecordedError& last_error() {
  thread_local RecordedError error;
  return error;
}

inline omnirt_status record_error(omnirt_status status, int64_t, const char* message) {
  last_error() = {status, message != nullptr ? message : ""};
  return status;
}

inline void ignore_log(int32_t, const char*, const char*) {}

inline const omnirt_host_services* test_host_services() {
  static const omnirt_host_services services = {sizeof(omnirt_host_services), OMNIRT_ABI_VERSION,
                                                &record_error, &ignore_log};
  return &services;
}

// The plugin file, dlopen'ed for the lifetime of the object.
class PluginLibrary {
 public:
  explicit PluginLibrary(const char* path) : handle_(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) ADD_FAILURE() << "dlopen " << path << ": " << dlerror();
  }
  ~PluginLibrary() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  // Calls the entry symbol offering [host_min, host_max]; nullptr on refusal.
  const omnirt_backend_vtable* entry(uint32_t host_min = OMNIRT_ABI_VERSION,
                                     uint32_t host_max = OMNIRT_ABI_VERSION) const {
    const omnirt_backend_entry_args args = {sizeof(omnirt_backend_entry_args), host_min, host_max,
                                            test_host_services()};
    return entry_function()(&args);
  }

  omnirt_backend_entry_fn entry_function() const {
    auto fn = reinterpret_cast<omnirt_backend_entry_fn>(
        handle_ != nullptr ? dlsym(handle_, OMNIRT_BACKEND_ENTRY_SYMBOL) : nullptr);
    if (fn == nullptr) ADD_FAILURE() << "no " OMNIRT_BACKEND_ENTRY_SYMBOL " in the plugin";
    return fn;
  }

 private:
  void* handle_;
};

// One backend instance made through the vtable's create slot.
class PluginInstance {
 public:
  explicit PluginInstance(const omnirt_backend_vtable* vtable) : vtable_(vtable) {
    const omnirt_backend_create_args args = {sizeof(omnirt_backend_create_args), nullptr, nullptr,
                                             0};
    EXPECT_EQ(vtable_->create(&args, &state_), OMNIRT_STATUS_OK);
  }
  ~PluginInstance() { vtable_->destroy(state_); }
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;

  omnirt_backend_state* state() const { return state_; }

 private:
  const omnirt_backend_vtable* vtable_;
  omnirt_backend_state* state_ = nullptr;
};

}  // namespace omnirt::cpu::testing

#endif  // OMNIRT_TESTS_CPU_PLUGIN_UNDER_TEST_H_
