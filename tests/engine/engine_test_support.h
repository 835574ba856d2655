// Helpers shared by the engine and op tests: a cpu plugin instance made with
// options through the C vtable, the log lines it wrote, and DLTensors over
// host buffers. Loading builds on tests/cpu/plugin_under_test.h.
#ifndef OMNIRT_TESTS_ENGINE_ENGINE_TEST_SUPPORT_H_
#define OMNIRT_TESTS_ENGINE_ENGINE_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine_test_paths.h"
#include "plugin_under_test.h"

namespace omnirt::engine_testing {

using cpu::testing::last_error;
using cpu::testing::PluginLibrary;

// libtorch's thread count in every instance these tests make unless a test
// says otherwise: libtorch's count is per process, so one value keeps the
// tests independent of their order. Neither 1 nor this machine's cores.
constexpr int kThreads = 3;

inline std::mutex& log_mutex() {
  static std::mutex m;
  return m;
}
inline std::vector<std::string>& log_lines() {
  static std::vector<std::string> lines;
  return lines;
}
inline void record_log(int32_t, const char*, const char* message) {
  std::lock_guard<std::mutex> lock(log_mutex());
  log_lines().push_back(message != nullptr ? message : "");
}
inline std::vector<std::string> logs() {
  std::lock_guard<std::mutex> lock(log_mutex());
  return log_lines();
}

using Options = std::vector<std::pair<std::string, std::string>>;

// One instance of the cpu plugin at `path`, made with `options`.
class CpuInstance {
 public:
  explicit CpuInstance(const char* path = OMNIRT_TEST_CPU_PLUGIN_PATH,
                       const Options& options = {{"threads", std::to_string(kThreads)}})
      : library_(path) {
    static const omnirt_host_services services = {
        sizeof(omnirt_host_services), OMNIRT_ABI_VERSION, &cpu::testing::record_error, &record_log};
    const omnirt_backend_entry_args entry = {sizeof entry, OMNIRT_ABI_VERSION, OMNIRT_ABI_VERSION,
                                             &services};
    v_ = library_.entry_function()(&entry);
    if (v_ == nullptr) {
      ADD_FAILURE() << "entry refused: " << last_error().message;
      return;
    }
    std::vector<const char*> keys, values;
    for (const auto& [k, value] : options) {
      keys.push_back(k.c_str());
      values.push_back(value.c_str());
    }
    const omnirt_backend_create_args args = {sizeof args, keys.data(), values.data(), keys.size()};
    create_status_ = v_->create(&args, &s_);
  }
  ~CpuInstance() {
    if (v_ != nullptr) v_->destroy(s_);
  }
  CpuInstance(const CpuInstance&) = delete;
  CpuInstance& operator=(const CpuInstance&) = delete;

  const omnirt_backend_vtable& v() const { return *v_; }
  omnirt_backend_state* s() const { return s_; }
  omnirt_status create_status() const { return create_status_; }

  omnirt_capabilities capabilities() const {
    omnirt_capabilities caps{};
    caps.struct_size = sizeof caps;
    EXPECT_EQ(v_->get_capabilities(s_, &caps), OMNIRT_STATUS_OK);
    return caps;
  }

  // module_load from bytes (path == nullptr) or a file.
  omnirt_status load(const std::string& bytes, int32_t tier, omnirt_executable** exe,
                     const char* format = "torchscript", const char* path = nullptr) const {
    omnirt_module_source source{};
    source.struct_size = sizeof source;
    source.format = format;
    if (path == nullptr) {
      source.data = bytes.data();
      source.size = bytes.size();
    } else {
      source.path = path;
    }
    return v_->module_load(s_, 0, &source, tier, nullptr, exe);
  }

 private:
  PluginLibrary library_;
  const omnirt_backend_vtable* v_ = nullptr;
  omnirt_backend_state* s_ = nullptr;
  omnirt_status create_status_ = OMNIRT_STATUS_INTERNAL;
};

// An f32 host tensor; empty strides mean compact row-major.
struct HostTensor {
  std::vector<float> data;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;

  DLTensor dl() {
    DLTensor t{};
    t.data = data.data();
    t.device = {kDLCPU, 0};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    return t;
  }
};

}  // namespace omnirt::engine_testing

#endif  // OMNIRT_TESTS_ENGINE_ENGINE_TEST_SUPPORT_H_
