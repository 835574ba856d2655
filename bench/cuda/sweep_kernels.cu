// The candidates of `cuda_kernel_bench --sweep`: the row kernels (rms_norm,
// layer_norm, softmax) of every register configuration, the plugin's
// (kernels/row_configs.h) and the sweep's (sweep_configs.h), each with both
// Access policies, from the plugin's own device code (row_kernels.cuh).
// Names: omnirt_<op>_<dtype>_<config> (cached, as the plugin's) and
// omnirt_<op>_<dtype>_<config>_cs (streaming). The bench loads this fatbin
// from the build tree; the plugin never sees it.
#include "row_kernels.cuh"
#include "sweep_configs.h"

using namespace omnirt::cuda::kernels;

#define OMNIRT_SWEEP_KERNELS(dt, T, cfg, LANES, V, R)                    \
  OMNIRT_ROW_KERNELS_ACCESS(dt, T, cfg, LANES, V, R, Access::kCached) \
  OMNIRT_ROW_KERNELS_ACCESS(dt, T, cfg##_cs, LANES, V, R, Access::kStreaming)

#define OMNIRT_SWEEP_ALL_DTYPES(cfg, LANES, V, R)                 \
  OMNIRT_SWEEP_KERNELS(f32, float, cfg, LANES, V, R)              \
  OMNIRT_SWEEP_KERNELS(f16, __half, cfg, LANES, V, R)             \
  OMNIRT_SWEEP_KERNELS(bf16, __nv_bfloat16, cfg, LANES, V, R)

#define OMNIRT_SWEEP_F32(cfg, LANES, V, R) OMNIRT_SWEEP_KERNELS(f32, float, cfg, LANES, V, R)

OMNIRT_ROW_CONFIGS(OMNIRT_SWEEP_ALL_DTYPES)
OMNIRT_ROW_CONFIGS_F32(OMNIRT_SWEEP_F32)
OMNIRT_SWEEP_ROW_CONFIGS(OMNIRT_SWEEP_ALL_DTYPES)
