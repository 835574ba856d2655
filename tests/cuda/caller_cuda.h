// The caller's side of CUDA, for tests that check what the plugin's calls do
// to the calling thread and to the devices: the very libcudart the plugin
// loaded (and the libcuda it loaded), found with RTLD_NOLOAD after the
// plugin's first real use, so that the test links no CUDA library and shares
// the plugin's per-thread runtime state. Prototypes are declared here rather
// than taken from the toolkit headers, which may be of another CUDA version
// than the runtime (libtorch's); each is stable since CUDA 11.
#ifndef OMNIRT_TESTS_CUDA_CALLER_CUDA_H_
#define OMNIRT_TESTS_CUDA_CALLER_CUDA_H_

#include <dlfcn.h>

#include <string>

namespace omnirt::cuda_test {

class CallerCuda {
 public:
  // Call once the plugin has loaded the runtime (e.g. after device_count()).
  // Empty on success, else why the runtime could not be reached.
  std::string open() {
    runtime_ = dlopen("libcudart.so." OMNIRT_CUDART_MAJOR_TEXT, RTLD_NOW | RTLD_NOLOAD);
    if (runtime_ == nullptr) return "libcudart.so." OMNIRT_CUDART_MAJOR_TEXT " is not loaded";
    get_device_ = reinterpret_cast<int (*)(int*)>(dlsym(runtime_, "cudaGetDevice"));
    set_device_ = reinterpret_cast<int (*)(int)>(dlsym(runtime_, "cudaSetDevice"));
    attributes_ = reinterpret_cast<int (*)(PointerAttributes*, const void*)>(
        dlsym(runtime_, "cudaPointerGetAttributes"));
    attribute_ =
        reinterpret_cast<int (*)(int*, int, int)>(dlsym(runtime_, "cudaDeviceGetAttribute"));
    if (!get_device_ || !set_device_ || !attributes_ || !attribute_) {
      return "libcudart lacks cudaGetDevice, cudaSetDevice, cudaPointerGetAttributes or "
             "cudaDeviceGetAttribute";
    }
    driver_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (driver_ != nullptr) {
      context_state_ = reinterpret_cast<int (*)(int, unsigned*, int*)>(
          dlsym(driver_, "cuDevicePrimaryCtxGetState"));
    }
    return "";
  }
  ~CallerCuda() {
    if (driver_ != nullptr) dlclose(driver_);
    if (runtime_ != nullptr) dlclose(runtime_);
  }

  // The calling thread's current device (cudaGetDevice); -1 on error.
  int device() const {
    int d = -1;
    return get_device_(&d) == 0 ? d : -1;
  }
  bool set_device(int device) const { return set_device_(device) == 0; }

  // The device whose memory `ptr` is, or -1 for host memory or an error.
  int device_of(const void* ptr) const {
    PointerAttributes a{};
    if (attributes_(&a, ptr) != 0) return -1;
    return a.type == kMemoryTypeDevice || a.type == kMemoryTypeManaged ? a.device : -1;
  }

  // Streaming multiprocessors of `device` (cudaDevAttrMultiProcessorCount); -1 on error.
  int sm_count(int device) const {
    int value = -1;
    return attribute_(&value, kAttrMultiProcessorCount, device) == 0 ? value : -1;
  }

  // Has the process a primary context on `device`? -1: cannot tell (no driver symbol).
  int has_context(int device) const {
    if (context_state_ == nullptr) return -1;
    unsigned flags = 0;
    int active = 0;
    return context_state_(device, &flags, &active) == 0 ? active : -1;
  }

 private:
  // cudaPointerAttributes (CUDA 11+: type, device, devicePointer, hostPointer,
  // then reserved words in 13), with room to spare for a newer runtime.
  struct PointerAttributes {
    int type;
    int device;
    void* device_pointer;
    void* host_pointer;
    long reserved[32];
  };
  static constexpr int kMemoryTypeDevice = 2, kMemoryTypeManaged = 3;
  static constexpr int kAttrMultiProcessorCount = 16;

  void* runtime_ = nullptr;
  void* driver_ = nullptr;
  int (*get_device_)(int*) = nullptr;
  int (*set_device_)(int) = nullptr;
  int (*attributes_)(PointerAttributes*, const void*) = nullptr;
  int (*attribute_)(int*, int, int) = nullptr;
  int (*context_state_)(int, unsigned*, int*) = nullptr;
};

}  // namespace omnirt::cuda_test

#endif  // OMNIRT_TESTS_CUDA_CALLER_CUDA_H_
