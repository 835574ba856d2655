#include "cuda_runtime.h"

#include <vector>

#include "cuda_library_dirs.h"
#include "omnirt_plugin_common/library_locator.h"

#define OMNIRT_CUDA_STR_(x) #x
#define OMNIRT_CUDA_STR(x) OMNIRT_CUDA_STR_(x)

namespace omnirt::cuda {
namespace {

constexpr const char* kDriverFile = "libcuda.so.1";
// The runtime major the plugin was compiled against: its prototypes are ours.
constexpr const char* kRuntimeFile = "libcudart.so." OMNIRT_CUDA_STR(OMNIRT_CUDART_MAJOR);

plugin_common::LibraryLocator driver_locator() {
  return plugin_common::LibraryLocator({kDriverFile, "", {}, loader_library_dirs()});
}

// The runtime: the toolkit's folders first, then where the loader would look.
plugin_common::LibraryLocator runtime_locator() {
  std::vector<std::string> dirs = {"/usr/local/cuda/lib64", OMNIRT_CUDA_TOOLKIT_LIBDIR};
  for (std::string& dir : loader_library_dirs()) dirs.push_back(std::move(dir));
  return plugin_common::LibraryLocator(
      {kRuntimeFile, "", {{"CUDA_HOME", "lib64"}, {"CUDA_PATH", "lib64"}}, std::move(dirs)});
}

}  // namespace

plugin::Availability Runtime::availability() const {
  if (once_.done()) return {error_.empty(), error_};
  if (!already_loaded(kDriverFile) && !driver_locator().find()) {
    return {false, std::string("no CUDA driver: ") + kDriverFile +
                       " not found (searched LD_LIBRARY_PATH, /etc/ld.so.conf and the system "
                       "library directories); install the NVIDIA driver"};
  }
  const plugin_common::LibraryLocator runtime = runtime_locator();
  if (!already_loaded(kRuntimeFile) && !runtime.find()) {
    return {false, "CUDA runtime: " + runtime.not_found_reason() +
                       "; install the CUDA toolkit or set CUDA_HOME"};
  }
  return {true, ""};
}

const Symbols& Runtime::get() {
  once_([this] { initialize(); });
  if (!error_.empty()) plugin::fail(OMNIRT_STATUS_UNAVAILABLE, "cuda: " + error_);
  return symbols_;
}

void Runtime::initialize() {
  std::string why;
  library_ = runtime_locator().open(&why);
  if (!library_) {
    error_ = "CUDA runtime " + std::string(kRuntimeFile) + " could not be loaded: " + why;
  } else {
#define OMNIRT_CUDA_RESOLVE(name)                                                                \
  if (error_.empty()) {                                                                          \
    symbols_.name =                                                                              \
        reinterpret_cast<decltype(symbols_.name)>(library_.symbol(OMNIRT_CUDA_STR(name)));       \
    if (symbols_.name == nullptr) {                                                              \
      error_ = library_.path() + " lacks " OMNIRT_CUDA_STR(name) "; it is older than the "     \
               "toolkit the plugin was built with"; \
    }                                                                                            \
  }
    OMNIRT_CUDART_SYMBOLS(OMNIRT_CUDA_RESOLVE)
#undef OMNIRT_CUDA_RESOLVE
  }
  if (error_.empty()) {
    // The first runtime call initializes the driver; its answer is the
    // runtime's own diagnosis (no driver, driver too old, no device).
    int count = 0;
    const cudaError_t status = symbols_.cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      error_ = std::string(symbols_.cudaGetErrorString(status)) + " (" +
               symbols_.cudaGetErrorName(status) + ", " + std::to_string(int(status)) +
               ", from cudaGetDeviceCount)";
    } else if (count == 0) {
      error_ = "no CUDA-capable device is visible (check CUDA_VISIBLE_DEVICES)";
    } else {
      device_count_ = count;
    }
  }
}

}  // namespace omnirt::cuda
