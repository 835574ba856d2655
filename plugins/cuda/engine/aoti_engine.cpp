// AOTInductor packages on a CUDA libtorch. Eager: the package's own run.
// Compile: the package loaded for single-threaded runs (its runtime then
// records and waits for no events, which a stream capture forbids), run
// through a GraphCache (graph_cache.h), whose lock serializes those runs.
#include "aoti_engine.h"

#include <c10/cuda/CUDAGuard.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <dlfcn.h>
#include <torch/version.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine_memory.h"
#include "graph_cache.h"
#include "torch_engine/warning_capture.h"

namespace omnirt::cuda_engine {
namespace {

using omnirt::plugin::fail;
using Loader = torch::inductor::AOTIModelPackageLoader;

#define OMNIRT_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||         \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

// A package given as bytes, written to a file for the loader (which takes a
// path); removed when the load is done (the loader extracts what it keeps).
class TemporaryPackage {
 public:
  TemporaryPackage(const void* data, size_t size) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/omnirt-aoti-XXXXXX.pt2";
    const int fd = mkstemps(path_.data(), 4);
    if (fd < 0) {
      fail(OMNIRT_STATUS_INTERNAL, "cannot make a temporary file for the package (" + path_ +
                                       "): " + std::strerror(errno));
    }
    const char* bytes = static_cast<const char*>(data);
    size_t written = 0;
    while (written < size) {
      const ssize_t n = write(fd, bytes + written, size - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const std::string why = n < 0 ? std::strerror(errno) : "nothing written";
        close(fd);
        unlink(path_.c_str());
        fail(OMNIRT_STATUS_INTERNAL, "cannot write the package to " + path_ + ": " + why);
      }
      written += size_t(n);
    }
    close(fd);
  }
  ~TemporaryPackage() { unlink(path_.c_str()); }
  TemporaryPackage(const TemporaryPackage&) = delete;
  TemporaryPackage& operator=(const TemporaryPackage&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A package's model library carries libstdc++ code of its own. Where the
// process holds libstdc++ in the global symbol scope (a C++ program) the
// library binds to that one copy; where it was loaded locally (a Python
// process, any dlopen(RTLD_LOCAL) host) the library mixes its own copy's
// locale data with the process's and crashes in std::regex at load
// (docs/aoti.md). Promoting the libstdc++ already loaded to global scope
// restores the C++ program's binding; a process without it has nothing to
// promote, and the handle is kept (libstdc++ is never unloaded).
void make_libstdcxx_global() {
  static const bool promoted = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) != nullptr;
  (void)promoted;
}

// The loader for `file` on cuda:`device`, single-threaded for a compile tier.
std::unique_ptr<Loader> make_loader(const std::string& file, int device, bool single_threaded) {
  make_libstdcxx_global();
#if OMNIRT_TORCH_AT_LEAST(2, 8)
  return std::make_unique<Loader>(file, "model", single_threaded, size_t{1},
                                  c10::DeviceIndex(device));
#else
  // Before 2.8 a package loads on the first GPU only (pytorch#152087).
  if (device != 0) {
    fail(OMNIRT_STATUS_NOT_SUPPORTED, "loading an AOTInductor package on cuda:" +
                                          std::to_string(device) +
                                          " needs PyTorch >= 2.8; this engine has libtorch " TORCH_VERSION);
  }
#if OMNIRT_TORCH_AT_LEAST(2, 7)
  return std::make_unique<Loader>(file, "model", single_threaded);
#else
  // No single-threaded runs before 2.7: a compile tier's capture fails and
  // its note says so; the package then runs without a graph.
  (void)single_threaded;
  return std::make_unique<Loader>(file, "model");
#endif
#endif
}

// The package's run on the current stream. Its runtime reports inputs it
// refuses (the wrong number, or, with its input checks, the wrong dtype or
// shape) as a std::runtime_error naming only the failed call; the checks
// print the reason on stderr.
std::vector<at::Tensor> run_package(Loader& loader, const std::vector<at::Tensor>& inputs) {
  try {
    return loader.run(inputs);
  } catch (const c10::Error&) {
    throw;  // libtorch's own errors keep their status (guarded)
  } catch (const std::runtime_error& e) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT,
         std::string("the AOTInductor package refused the run (") + e.what() +
             "); its input checks, compiled in and enabled with AOTI_RUNTIME_CHECK_INPUTS=1, "
             "print why on stderr");
  }
}

class AotiModule final : public omnirt_cuda_engine_module {
 public:
  AotiModule(std::unique_ptr<Loader> loader, int device_index, bool compile_tier)
      : omnirt_cuda_engine_module(device_index), loader_(std::move(loader)) {
    if (compile_tier) {
      graphs_.emplace(device_index, this, [this](const std::vector<at::Tensor>& inputs,
                                                 const c10::cuda::CUDAStream&) {
        return unnamed(run_package(*loader_, inputs));
      });
    }
  }

  // The package runs on the current stream, which is the run's (run_module,
  // GraphCache make it current): its loader's run takes no stream before 2.7.
  void run(const DLTensor* inputs, size_t num_inputs, const c10::cuda::CUDAStream& stream,
           std::vector<DLManagedTensor*>& out, std::string& note) override {
    if (graphs_) return graphs_->run(inputs, num_inputs, stream, out, note);
    hand_out_all(unnamed(run_package(*loader_, wrap_all(inputs, num_inputs, device))), this,
                 nullptr, out);
  }

 private:
  std::unique_ptr<Loader> loader_;
  std::optional<GraphCache> graphs_;  // the compile tier's
};

}  // namespace

omnirt_status load_aoti(const void* data, size_t size, const char* path, int32_t tier,
                        int32_t device, omnirt_cuda_engine_module** out, char* message,
                        size_t capacity) noexcept {
  torch_common::WarningCapture warnings;
  return guarded(message, capacity, [&] {
    check_load_arguments(tier, device);
    std::optional<TemporaryPackage> copy;
    if (data != nullptr) {
      copy.emplace(data, size);
    } else if (!std::ifstream(path).good()) {
      fail(OMNIRT_STATUS_NOT_FOUND, std::string("no package file ") + path);
    }
    const std::string file = copy ? copy->path() : std::string(path);
    const c10::cuda::CUDAGuard on_device{c10::DeviceIndex(device)};
    // What the package's loader allocates through libtorch comes from the
    // module's pool; its weights do not (the package cudaMallocs them).
    std::shared_ptr<ModulePool> pool = pool_for_load(device, true);
    const PoolScope in_pool(pool.get());
    std::unique_ptr<Loader> loader;
    try {
      loader = make_loader(file, device, tier == OMNIRT_TIER_COMPILE);
    } catch (const omnirt::plugin::Error&) {
      throw;
    } catch (const c10::OutOfMemoryError&) {
      throw;
    } catch (const c10::Error& e) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT,
           std::string("not an AOTInductor package: ") + e.what_without_backtrace());
    } catch (const std::exception& e) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string("not an AOTInductor package: ") + e.what());
    }
    const std::string key = loader->get_metadata()["AOTI_DEVICE_KEY"];
    if (key != "cuda") {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT,
           "the AOTInductor package was compiled for device '" + key + "', not cuda");
    }
    auto loaded = std::make_unique<AotiModule>(std::move(loader), device, tier == OMNIRT_TIER_COMPILE);
    loaded->pool = std::move(pool);
    *out = loaded.release();
  });
}

}  // namespace omnirt::cuda_engine
