// The bench's own kernels (sweep_kernels.cu: the sweep's candidates and the
// streaming references), nvcc-built into a fatbin that the bench loads from
// the build tree (OMNIRT_BENCH_FATBIN_PATH), and how to launch one as the
// plugin launches its kernels.
#ifndef OMNIRT_BENCH_CUDA_BENCH_FATBIN_H_
#define OMNIRT_BENCH_CUDA_BENCH_FATBIN_H_

#include <cuda_runtime_api.h>

#include <string>

#include "kernel_timing.h"

namespace omnirt::cuda_test {

class BenchFatbin {
 public:
  BenchFatbin() {
    check_cuda(cudaLibraryLoadFromFile(&library_, OMNIRT_BENCH_FATBIN_PATH, nullptr, nullptr, 0, nullptr,
                                       nullptr, 0),
               "cudaLibraryLoadFromFile(" OMNIRT_BENCH_FATBIN_PATH ")");
  }
  ~BenchFatbin() { cudaLibraryUnload(library_); }
  BenchFatbin(const BenchFatbin&) = delete;
  BenchFatbin& operator=(const BenchFatbin&) = delete;

  /// The kernel `symbol` as a function cudaLaunchKernelExC takes; throws when absent.
  const void* function(const std::string& symbol) const {
    cudaKernel_t kernel = nullptr;
    check_cuda(cudaLibraryGetKernel(&kernel, library_, symbol.c_str()), symbol.c_str());
    return reinterpret_cast<const void*>(kernel);
  }

 private:
  cudaLibrary_t library_ = nullptr;
};

// As the plugin launches (cuda_kernels.cpp's Kernels::launch): with
// programmatic stream serialization where the GPU has it (`overlap`), which
// the kernels' overlap_launch takes up; with `shared_bytes` of dynamic shared
// memory (above 48 KiB the kernel must have been allowed them).
inline void launch_as_plugin(const void* function, unsigned blocks, unsigned threads, void** args,
                             bool overlap, unsigned shared_bytes = 0) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared_bytes;
  cudaLaunchAttribute serialization{};
  serialization.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  serialization.val.programmaticStreamSerializationAllowed = 1;
  if (overlap) {
    config.attrs = &serialization;
    config.numAttrs = 1;
  }
  check_cuda(cudaLaunchKernelExC(&config, function, args), "cudaLaunchKernelExC");
}

}  // namespace omnirt::cuda_test

#endif  // OMNIRT_BENCH_CUDA_BENCH_FATBIN_H_
