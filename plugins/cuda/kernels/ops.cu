// The omnirt.nn ops as CUDA kernels, compiled by nvcc into a fatbin that the
// plugin embeds and loads with cudaLibraryLoadData (cuda_kernels.cpp): every
// register configuration of row_configs.h, the loop kernels, the column and
// shared-memory softmax and layer_norm and geglu, in f32, f16 and bf16. The
// code is row_kernels.cuh's, shared_row_softmax.cuh's and
// shared_row_layer_norm.cuh's.
// Kernel names: omnirt_<op>_<dtype>_<config>.
#include "row_kernels.cuh"
#include "shared_row_layer_norm.cuh"
#include "shared_row_softmax.cuh"

using namespace omnirt::cuda::kernels;

OMNIRT_ROW_CONFIG_LISTS(OMNIRT_ROW_CONFIG_KERNELS)
OMNIRT_DTYPE_KERNELS(f32, float)
OMNIRT_DTYPE_KERNELS(f16, __half)
OMNIRT_DTYPE_KERNELS(bf16, __nv_bfloat16)
OMNIRT_SHARED_ROW_SOFTMAX_KERNEL(f32, float)
OMNIRT_SHARED_ROW_SOFTMAX_KERNEL(f16, __half)
OMNIRT_SHARED_ROW_SOFTMAX_KERNEL(bf16, __nv_bfloat16)
OMNIRT_SHARED_ROW_LAYER_NORM_KERNEL(f32, float)
OMNIRT_SHARED_ROW_LAYER_NORM_KERNEL(f16, __half)
OMNIRT_SHARED_ROW_LAYER_NORM_KERNEL(bf16, __nv_bfloat16)
