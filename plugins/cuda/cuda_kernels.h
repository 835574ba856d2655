// The hand-written kernels of op set omnirt.nn v1 (rms_norm, layer_norm,
// softmax, geglu; f32, f16, bf16), as this backend's named ops. The kernels
// are nvcc-compiled into a fatbin embedded in the plugin (kernels/) and loaded
// on first use with cudaLibraryLoadData, which loads them into each device's
// context lazily: no CUDA library is linked and no driver-API table needed.
#ifndef OMNIRT_PLUGINS_CUDA_CUDA_KERNELS_H_
#define OMNIRT_PLUGINS_CUDA_CUDA_KERNELS_H_

#include <atomic>

#include "cuda_symbols.h"
#include "launch_plan.h"
#include "omnirt/types.h"
#include "omnirt_plugin_common/once.h"

namespace omnirt::cuda {

class Kernels {
 public:
  static constexpr int kOps = 4;     // in the order of op_decls()
  static constexpr int kDtypes = 3;  // f32, f16, bf16

  Kernels() = default;
  ~Kernels();
  Kernels(const Kernels&) = delete;
  Kernels& operator=(const Kernels&) = delete;

  // Static arrays, valid for the life of the plugin.
  static const omnirt_op_set* op_sets(size_t* count);
  static const omnirt_op_decl* op_decls(size_t* count);

  /// Checks and launches op `name` on `stream` (the caller made the tensors'
  /// device current). Throws NOT_FOUND for an unknown op, INVALID_ARGUMENT
  /// naming the tensor or attribute for a bad call.
  void run(const Symbols& cuda, const char* name, const DLTensor* inputs, size_t num_inputs,
           DLTensor* outputs, size_t num_outputs, const omnirt_op_attr* attrs, size_t num_attrs,
           cudaStream_t stream);

 private:
  // What launching on a device needs to know of it.
  struct DeviceTraits {
    int sm_count = 0;
    bool overlap = false;  // sm_90 or later: programmatic dependent launch
  };

  cudaKernel_t kernel(const Symbols& cuda, int op, int dtype, int variant);
  // `device`'s traits, asked once (for the first kCachedDevices devices),
  // which also raises the shared-memory softmax's dynamic shared memory
  // limit on it to kSharedRowBytes. `device` is current.
  DeviceTraits device_traits(const Symbols& cuda, int device);
  // Launches `function` as `plan` says on `stream`, overlapping the kernel
  // before it where the device can (row_kernels.cuh: overlap_launch).
  void launch(const Symbols& cuda, cudaKernel_t function, const LaunchPlan& plan,
              const DeviceTraits& traits, void** args, cudaStream_t stream);

  static constexpr int kCachedDevices = 64;
  plugin_common::Once once_;
  const Symbols* cuda_ = nullptr;  // set with library_
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernels_[kOps][kDtypes][kVariants] = {};  // the variants each op has
  // DeviceTraits packed as sm_count * 2 + overlap; 0: not asked yet.
  std::atomic<int> device_traits_[kCachedDevices] = {};
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_KERNELS_H_
