// Shared helpers of the wrap_module tests: hosts made from explicit plugin
// files (never the environment or the installed directory), small float
// tensors, owned outputs and report JSON.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>
#include <vector>

#include "omnirt/host.h"
#include "wrap_test_paths.h"

namespace wraptest {

/// A directory of this test process's own under the temp dir, removed with
/// its content when the process exits.
inline const std::string& process_temp_dir() {
  static const struct Dir {
    Dir() {
      std::string pattern = (std::filesystem::temp_directory_path() / "omnirt_wrap_XXXXXX").string();
      if (mkdtemp(pattern.data()) != nullptr) path = pattern;
    }
    ~Dir() {
      std::error_code ignored;
      if (!path.empty()) std::filesystem::remove_all(path, ignored);
    }
    std::string path;
  } dir;
  return dir.path;
}

/// Writes `text` to a fresh file of process_temp_dir() and returns its path.
inline std::string write_temp(const std::string& text, const std::string& suffix) {
  static int counter = 0;
  const std::string path = process_temp_dir() + "/" + std::to_string(counter++) + suffix;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

inline std::string last_message() { return omnirt_last_error()->message; }

/// A host of the given plugin files and optional YAML configuration.
class Host {
 public:
  explicit Host(std::vector<std::string> plugins, const std::string& yaml = "",
                uint32_t flags = OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR)
      : plugins_(std::move(plugins)) {
    std::vector<const char*> paths;
    for (const auto& p : plugins_) paths.push_back(p.c_str());
    const std::string config = yaml.empty() ? "" : write_temp(yaml, ".yaml");
    omnirt_host_options o{};
    o.struct_size = sizeof o;
    o.config_path = config.empty() ? nullptr : config.c_str();
    o.plugin_paths = paths.data();
    o.num_plugin_paths = paths.size();
    o.flags = flags;
    status_ = omnirt_host_create(&o, &host_);
  }
  ~Host() { omnirt_host_destroy(host_); }
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  omnirt_status status() const { return status_; }
  omnirt_backend* backend(const char* name) {
    omnirt_backend* b = nullptr;
    const omnirt_status s = omnirt_host_get_backend(host_, name, &b);
    EXPECT_EQ(s, OMNIRT_STATUS_OK) << name << ": " << last_message();
    return b;
  }
  omnirt_host* get() { return host_; }

 private:
  std::vector<std::string> plugins_;
  omnirt_host* host_ = nullptr;
  omnirt_status status_ = OMNIRT_STATUS_INTERNAL;
};

/// A float32 tensor in host memory.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
  DLDevice device{kDLCPU, 0};

  DLTensor view() {
    DLTensor t{};
    t.data = data.data();
    t.device = device;
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = DLDataType{kDLFloat, 32, 1};
    t.shape = shape.data();
    return t;
  }
};

inline Tensor iota(std::vector<int64_t> shape, float start = 1.0f) {
  Tensor t{std::move(shape), {}};
  size_t n = 1;
  for (int64_t d : t.shape) n *= static_cast<size_t>(d);
  for (size_t i = 0; i < n; ++i) t.data.push_back(start + static_cast<float>(i));
  return t;
}

/// A new float32 output shaped like `input` (host memory, contiguous) holding
/// `f` of each of its elements; its deleter frees it. For embedder overrides.
template <class F>
DLManagedTensor* map_floats(const DLTensor& input, F f) {
  struct Owned {
    DLManagedTensor m{};
    std::vector<int64_t> shape;
    std::vector<float> data;
  };
  auto* o = new Owned;
  o->shape.assign(input.shape, input.shape + input.ndim);
  const auto* src = static_cast<const float*>(input.data);
  size_t n = 1;
  for (int64_t d : o->shape) n *= static_cast<size_t>(d);
  for (size_t i = 0; i < n; ++i) o->data.push_back(f(src[i]));
  o->m.dl_tensor = input;
  o->m.dl_tensor.data = o->data.data();
  o->m.dl_tensor.shape = o->shape.data();
  o->m.dl_tensor.strides = nullptr;
  o->m.manager_ctx = o;
  o->m.deleter = [](DLManagedTensor* self) { delete static_cast<Owned*>(self->manager_ctx); };
  return &o->m;
}

/// Outputs of one run, released on destruction.
struct Outputs {
  ~Outputs() {
    for (size_t i = 0; i < count; ++i) slots[i]->deleter(slots[i]);
  }
  const float* floats(size_t i) const {
    return static_cast<const float*>(slots[i]->dl_tensor.data);
  }
  DLManagedTensor* slots[8] = {};
  size_t count = 0;
};

struct ReportDeleter {
  void operator()(omnirt_report* r) const { omnirt_report_destroy(r); }
};
using Report = std::unique_ptr<omnirt_report, ReportDeleter>;

inline Report make_report(omnirt_backend* backend) {
  omnirt_report* r = nullptr;
  EXPECT_EQ(omnirt_report_create(backend, nullptr, &r), OMNIRT_STATUS_OK);
  return Report(r);
}

inline nlohmann::json report_json(omnirt_report* report) {
  char* text = nullptr;
  EXPECT_EQ(omnirt_report_to_json(report, &text), OMNIRT_STATUS_OK);
  nlohmann::json doc = nlohmann::json::parse(text);
  omnirt_string_free(text);
  return doc;
}

struct ModuleDeleter {
  void operator()(omnirt_module* m) const { omnirt_module_destroy(m); }
};
using Module = std::unique_ptr<omnirt_module, ModuleDeleter>;

inline std::vector<omnirt_attempt> attempts(const omnirt_module* m) {
  std::vector<omnirt_attempt> out(omnirt_module_attempt_count(m));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].struct_size = sizeof(omnirt_attempt);
    EXPECT_EQ(omnirt_module_get_attempt(m, i, &out[i]), OMNIRT_STATUS_OK);
  }
  return out;
}

}  // namespace wraptest
