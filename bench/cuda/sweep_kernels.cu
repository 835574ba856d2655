// The bench's own kernels: the streaming references (stream_kernels.cuh),
// and the candidates of `cuda_kernel_bench --sweep`: the row kernels (rms_norm,
// layer_norm, softmax) of every register configuration, the plugin's
// (kernels/row_configs.h) and the sweep's (sweep_configs.h), each with both
// Access policies, the packed ones for f16/bf16, the loop kernels and those
// that hold rows in shared memory, from the plugin's own device code
// (row_kernels.cuh, shared_row_*.cuh).
// Names: omnirt_<op>_<dtype>_<config> (cached, as the plugin's) and
// omnirt_<op>_<dtype>_<config>_cs (streaming); loop kernels are cached only.
// The bench loads this fatbin from the build tree; the plugin never sees it.
#include "row_kernels.cuh"
#include "shared_row_layer_norm.cuh"
#include "shared_row_softmax.cuh"
#include "stream_kernels.cuh"
#include "sweep_configs.h"

using namespace omnirt::cuda::kernels;

// A configuration with both Access policies, within `BOUNDS`.
#define OMNIRT_SWEEP_BOUNDED(dt, T, cfg, LANES, V, R, Packed, BOUNDS)                             \
  OMNIRT_ROW_KERNELS_BOUNDED(dt, T, cfg, LANES, V, R, Access::kCached, Packed, BOUNDS) \
  OMNIRT_ROW_KERNELS_BOUNDED(dt, T, cfg##_cs, LANES, V, R, Access::kStreaming, Packed, BOUNDS)

#define OMNIRT_SWEEP_HELD(dt, T, cfg, LANES, V, R, Packed) \
  OMNIRT_SWEEP_BOUNDED(dt, T, cfg, LANES, V, R, Packed, OMNIRT_ROW_BOUNDS_##Packed(LANES))

#define OMNIRT_SWEEP_KERNELS(dt, T, cfg, LANES, V, R) OMNIRT_SWEEP_HELD(dt, T, cfg, LANES, V, R, false)

// Each list's configurations in the dtypes its plugin kernels have, by the
// list's name (row_configs.h): OMNIRT_SWEEP_LIST_<list>.
#define OMNIRT_SWEEP_ROW(list, cfg, LANES, V, R) OMNIRT_SWEEP_LIST_##list(cfg, LANES, V, R)

#define OMNIRT_SWEEP_LIST_F32(cfg, LANES, V, R) OMNIRT_SWEEP_KERNELS(f32, float, cfg, LANES, V, R)
#define OMNIRT_SWEEP_LIST_SHORT_F32(cfg, LANES, V, R) OMNIRT_SWEEP_LIST_F32(cfg, LANES, V, R)
#define OMNIRT_SWEEP_LIST_SHORT_SOFTMAX_F32(cfg, LANES, V, R) OMNIRT_SWEEP_LIST_F32(cfg, LANES, V, R)
// SHORT_LAYER_NORM_F32's w1r2 is EVERY's w1 in f32 under a name of its own,
// by which the planner gives it its block and Access: the sweep times both.
#define OMNIRT_SWEEP_LIST_SHORT_LAYER_NORM_F32(cfg, LANES, V, R) OMNIRT_SWEEP_LIST_F32(cfg, LANES, V, R)

#define OMNIRT_SWEEP_LIST_LAYER_NORM_16(cfg, LANES, V, R) \
  OMNIRT_SWEEP_KERNELS(f16, __half, cfg, LANES, V, R)      \
  OMNIRT_SWEEP_KERNELS(bf16, __nv_bfloat16, cfg, LANES, V, R)

// RMS_NORM_16's b4s is EVERY's b4 in 16-bit under a name of its own, by
// which the planner gives rms_norm its Access: the sweep times both.
#define OMNIRT_SWEEP_LIST_RMS_NORM_16(cfg, LANES, V, R) OMNIRT_SWEEP_LIST_LAYER_NORM_16(cfg, LANES, V, R)

#define OMNIRT_SWEEP_LIST_EVERY(cfg, LANES, V, R) \
  OMNIRT_SWEEP_LIST_F32(cfg, LANES, V, R)         \
  OMNIRT_SWEEP_LIST_LAYER_NORM_16(cfg, LANES, V, R)

#define OMNIRT_SWEEP_LIST_WIDE_F32(cfg, LANES, V, R) \
  OMNIRT_SWEEP_BOUNDED(f32, float, cfg, LANES, V, R, false, OMNIRT_WIDE_ROW_BOUNDS)

#define OMNIRT_SWEEP_LIST_PACKED(cfg, LANES, V, R)       \
  OMNIRT_SWEEP_HELD(f16, __half, cfg, LANES, V, R, true) \
  OMNIRT_SWEEP_HELD(bf16, __nv_bfloat16, cfg, LANES, V, R, true)

OMNIRT_ROW_CONFIG_LISTS(OMNIRT_SWEEP_ROW)
OMNIRT_SWEEP_ROW_CONFIGS(OMNIRT_SWEEP_ROW)
OMNIRT_SWEEP_PACKED_CONFIGS(OMNIRT_SWEEP_ROW)

#define OMNIRT_SWEEP_LOOP_lv(dt, T) OMNIRT_LOOP_KERNELS(dt, T, lv, kPack<T>)
#define OMNIRT_SWEEP_LOOP_l2(dt, T) OMNIRT_TWO_PASS_KERNELS(dt, T, l2)
#define OMNIRT_SWEEP_LOOP(cfg)                \
  OMNIRT_SWEEP_LOOP_##cfg(f32, float)         \
  OMNIRT_SWEEP_LOOP_##cfg(f16, __half)        \
  OMNIRT_SWEEP_LOOP_##cfg(bf16, __nv_bfloat16)
OMNIRT_SWEEP_LOOP_KERNELS(OMNIRT_SWEEP_LOOP)

// geglu over 16-byte pieces, P of them a thread loaded before any is
// computed: omnirt_geglu_<dtype>_p<P> (cached) and _p<P>_cs (streaming).
#define OMNIRT_SWEEP_GEGLU_ACCESS(dt, T, P, name, A)                                             \
  extern "C" __global__ void __launch_bounds__(kElementwiseThreads)                              \
      omnirt_geglu_##dt##_p##P##name(const T* a, const T* b, T* y, long long count) {            \
    overlap_launch();                                                                            \
    geglu<T, kPack<T>, P, A>(a, b, y, count);                                                    \
  }
#define OMNIRT_SWEEP_GEGLU_DTYPE(dt, T, P)                      \
  OMNIRT_SWEEP_GEGLU_ACCESS(dt, T, P, , Access::kCached)        \
  OMNIRT_SWEEP_GEGLU_ACCESS(dt, T, P, _cs, Access::kStreaming)
#define OMNIRT_SWEEP_GEGLU(P)                        \
  OMNIRT_SWEEP_GEGLU_DTYPE(f32, float, P)            \
  OMNIRT_SWEEP_GEGLU_DTYPE(f16, __half, P)           \
  OMNIRT_SWEEP_GEGLU_DTYPE(bf16, __nv_bfloat16, P)
OMNIRT_SWEEP_GEGLU_PACKS(OMNIRT_SWEEP_GEGLU)

// layer_norm over 16-bit rows kept in shared memory: the plugin's,
// omnirt_layer_norm_<dtype>_sh.
OMNIRT_SHARED_ROW_LAYER_NORM_KERNEL(f16, __half)
OMNIRT_SHARED_ROW_LAYER_NORM_KERNEL(bf16, __nv_bfloat16)

// softmax over 16-bit rows kept in shared memory: the plugin's (copied by
// the engine on sm_90), omnirt_softmax_<dtype>_sh, and the threads loading
// P packs each at once, omnirt_softmax_<dtype>_sh<P>; both first have L2
// prefetch the row (prefetch_first_row).
OMNIRT_SHARED_ROW_SOFTMAX_KERNEL(f16, __half)
OMNIRT_SHARED_ROW_SOFTMAX_KERNEL(bf16, __nv_bfloat16)
#define OMNIRT_SWEEP_SHARED_DTYPE(dt, T, P)                                                            \
  extern "C" __global__ void __launch_bounds__(kSharedRowThreads)                                      \
      omnirt_softmax_##dt##_sh##P(const T* x, T* y, long long rows, long long n, long long) {          \
    overlap_launch([=] { prefetch_first_row(x, rows, n); });                                           \
    softmax_shared<T, P>(x, y, rows, n);                                                               \
  }
#define OMNIRT_SWEEP_SHARED(P)                 \
  OMNIRT_SWEEP_SHARED_DTYPE(f16, __half, P)    \
  OMNIRT_SWEEP_SHARED_DTYPE(bf16, __nv_bfloat16, P)
OMNIRT_SWEEP_SHARED_PACKS(OMNIRT_SWEEP_SHARED)
