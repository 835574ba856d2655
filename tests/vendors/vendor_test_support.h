// Shared by the vendor backend tests: what differs between the ascend and
// cambricon backends (paths, vendor codes, the symbol the old SDK lacks), and
// a host made the way an embedder makes it, pointed at a simulated runtime.
#ifndef OMNIRT_TESTS_VENDORS_VENDOR_TEST_SUPPORT_H_
#define OMNIRT_TESTS_VENDORS_VENDOR_TEST_SUPPORT_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "omnirt/host.h"
#include "vendor_test_paths.h"

namespace omnirt::vendor_test {

struct Vendor {
  const char* backend;                 // "ascend"
  const char* plugin;                  // libomnirt_backend_<backend>.so
  const char* sim;                     // simulated runtime library
  const char* old_sim;                 // the same, built as an older SDK
  const char* sim_root;                // install-like root of `sim`
  const char* root_variable;           // vendor variable naming an install root
  const char* soname;                  // "libascendcl.so"
  const char* vendor_tag;              // omnirt_capabilities::vendor
  const char* device_name;             // what the simulated devices are called
  const char* arch;                    // omnirt_device_info::arch on the simulation
  int32_t compute_units;               // ... and its compute units
  int64_t out_of_memory_code;          // native code of a failed device allocation
  int64_t device_lost_code;            // native code once the device is lost
  const char* old_sdk_lacks;           // the entry point the old SDK does not export
  const char* init_call;               // the call that fails when initialization does
  std::vector<const char*> variables;  // vendor variables that name install roots
  const char* collectives_sim;         // the simulated collective library beside `sim`
  const char* collectives_option;      // the backend option naming it
  const char* collectives_name;        // how collectives_library names it ("HCCL (")
  bool (*reducible)(int32_t dtype, int32_t op);  // what the library reduces
};

// HCCL and CNCL have no average; CNCL has no 64-bit float either.
inline bool hccl_reduces(int32_t, int32_t op) { return op != OMNIRT_REDUCE_AVG; }
inline bool cncl_reduces(int32_t dtype, int32_t op) {
  return op != OMNIRT_REDUCE_AVG && dtype != OMNIRT_DTYPE_F64;
}

inline const Vendor& ascend() {
  static const Vendor v{"ascend",
                        OMNIRT_TEST_ASCEND_PLUGIN,
                        OMNIRT_TEST_ASCEND_SIM,
                        OMNIRT_TEST_ASCEND_OLD_SIM,
                        OMNIRT_TEST_ASCEND_SIM_ROOT,
                        "ASCEND_HOME_PATH",
                        "libascendcl.so",
                        "huawei-ascend",
                        "Ascend910B4-sim",
                        "Ascend910B4-sim",
                        20,
                        207001,  // ACL_ERROR_RT_MEMORY_ALLOCATION
                        507010,  // ACL_ERROR_RT_LOST_HEARTBEAT
                        "aclrtMemsetAsync",
                        "aclInit",
                        {"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"},
                        OMNIRT_TEST_HCCL_SIM,
                        "hccl_library",
                        "HCCL (",
                        &hccl_reduces};
  return v;
}

inline const Vendor& cambricon() {
  static const Vendor v{"cambricon",
                        OMNIRT_TEST_CAMBRICON_PLUGIN,
                        OMNIRT_TEST_CAMBRICON_SIM,
                        OMNIRT_TEST_CAMBRICON_OLD_SIM,
                        OMNIRT_TEST_CAMBRICON_SIM_ROOT,
                        "NEUWARE_HOME",
                        "libcnrt.so",
                        "cambricon",
                        "MLU370-S4-sim",
                        "mtp_372",
                        24,
                        100100,  // cnrtErrorNoMem
                        100132,  // cnrtErrorKernelTrap
                        "cnrtMemcpyAsync_V2",
                        "cnrtGetDeviceCount",
                        {"NEUWARE_HOME"},
                        OMNIRT_TEST_CNCL_SIM,
                        "cncl_library",
                        "CNCL 1.25.0 (",
                        &cncl_reduces};
  return v;
}

// Sets environment variables for one test and restores them afterwards.
class ScopedEnvironment {
 public:
  ScopedEnvironment() = default;
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  ~ScopedEnvironment() {
    for (const auto& [name, old] : saved_) {
      if (old.second) {
        setenv(name.c_str(), old.first.c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }
  void set(const std::string& name, const std::string& value) {
    remember(name);
    setenv(name.c_str(), value.c_str(), 1);
  }
  void unset(const std::string& name) {
    remember(name);
    unsetenv(name.c_str());
  }

 private:
  void remember(const std::string& name) {
    if (saved_.count(name) != 0) return;
    const char* old = getenv(name.c_str());
    saved_[name] = {old != nullptr ? old : "", old != nullptr};
  }
  std::map<std::string, std::pair<std::string, bool>> saved_;
};

// Names parameterized tests after the backend: Backends/VendorBackend.X/ascend.
inline std::string backend_name(const ::testing::TestParamInfo<const Vendor*>& param) {
  return param.param->backend;
}

inline std::string last_message() { return omnirt_last_error()->message; }
inline int64_t last_native_code() { return omnirt_last_error()->native_code; }

// A host that loads one vendor plugin, configured with backend options
// written to a YAML file, ignoring the environment and the installed plugins.
class Host {
 public:
  Host(const Vendor& vendor, const std::map<std::string, std::string>& options) {
    std::string yaml = "backends:\n  " + std::string(vendor.backend) + ":\n    options:";
    if (options.empty()) yaml += " {}";
    for (const auto& [key, value] : options) yaml += "\n      " + key + ": \"" + value + "\"";
    yaml += "\n";
    std::string path = (std::filesystem::temp_directory_path() / "omnirt_vendor_test_XXXXXX.yaml").string();
    const int fd = mkstemps(path.data(), 5);
    if (fd < 0 || write(fd, yaml.data(), yaml.size()) != static_cast<ssize_t>(yaml.size())) {
      ADD_FAILURE() << "cannot write " << path;
    }
    if (fd >= 0) close(fd);
    config_ = path;

    const char* paths[] = {vendor.plugin};
    omnirt_host_options host_options{};
    host_options.struct_size = sizeof host_options;
    host_options.config_path = config_.c_str();
    host_options.plugin_paths = paths;
    host_options.num_plugin_paths = 1;
    host_options.flags = OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR;
    status_ = omnirt_host_create(&host_options, &host_);
  }
  ~Host() {
    omnirt_host_destroy(host_);
    std::remove(config_.c_str());
  }
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  omnirt_status create_status() const { return status_; }
  omnirt_host* get() const { return host_; }

  // The backend whatever its availability (omnirt_host_get_backend refuses an
  // unavailable one).
  omnirt_backend* any_backend() const {
    omnirt_backend* backend = nullptr;
    if (omnirt_host_backend_count(host_) == 1) omnirt_host_backend_at(host_, 0, &backend);
    return backend;
  }

  omnirt_backend_info info() const {
    omnirt_backend_info info{};
    info.struct_size = sizeof info;
    omnirt_backend_get_info(any_backend(), &info);
    return info;
  }

 private:
  std::string config_;
  omnirt_host* host_ = nullptr;
  omnirt_status status_ = OMNIRT_STATUS_INTERNAL;
};

}  // namespace omnirt::vendor_test

#endif  // OMNIRT_TESTS_VENDORS_VENDOR_TEST_SUPPORT_H_
