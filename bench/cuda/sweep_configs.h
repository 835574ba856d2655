// Register configurations that `cuda_kernel_bench --sweep` times beside the
// plugin's own (kernels/row_configs.h), in the same X(list, suffix, lanes,
// packs, rows) form, `list` naming the plugin's list whose kernels they are
// like: more or fewer rows in flight per group, fewer lanes holding more
// packs each, and smaller blocks per row; and kernels that keep long rows
// in fewer registers (packed) or none (loop). bench/cuda/sweep_kernels.cu
// instantiates them from kernels/row_kernels.cuh; one the sweep shows faster
// is adopted by moving it into row_configs.h and the planner.
// Plain C++: nvcc and the host compiler both include it.
#ifndef OMNIRT_BENCH_CUDA_SWEEP_CONFIGS_H_
#define OMNIRT_BENCH_CUDA_SWEEP_CONFIGS_H_

// At most 8 packs a thread: 64 floats of f16/bf16, as the plugin's. g16p2
// is listed as LAYER_NORM_16's for that list's dtypes, f16 and bf16: f32's
// is the plugin's (SHORT_SOFTMAX_F32).
#define OMNIRT_SWEEP_ROW_CONFIGS(X) \
  X(EVERY, g4r8, 4, 1, 8)           \
  X(EVERY, g4p2, 4, 2, 4)           \
  X(EVERY, g4p4, 4, 4, 2)           \
  X(EVERY, g4p8, 4, 8, 1)           \
  X(EVERY, g8r8, 8, 1, 8)           \
  X(EVERY, g8p2, 8, 2, 4)           \
  X(EVERY, g8p4, 8, 4, 2)           \
  X(LAYER_NORM_16, g16p2, 16, 2, 2) \
  X(EVERY, w1r4, 32, 1, 4)          \
  X(EVERY, w2r1, 32, 2, 1)          \
  X(EVERY, b1, 0, 1, 1)             \
  X(EVERY, b2, 0, 2, 1)

// f16/bf16 alone, the row held in its 16-bit form (row_kernels.cuh's Held):
// 4 registers a pack instead of 8, and bounded to two blocks per SM. (16
// packs, 64 registers of row alone, spill hundreds of bytes under that bound.)
// The plugin's own, b8h, is in row_configs.h.
#define OMNIRT_SWEEP_PACKED_CONFIGS(X) X(PACKED, b4h, 0, 4, 1)

// Kernels that hold no row (block per row, kLoopThreads): the plugin's loop
// kernel "lv" (softmax and layer_norm read the row three times) and "l2",
// which reads it twice (row_kernels.cuh's two-pass kernels).
#define OMNIRT_SWEEP_LOOP_KERNELS(X) \
  X(lv)                              \
  X(l2)

// geglu: 16-byte pieces each thread loads before it computes any (the
// plugin's is kernels/row_configs.h's kGegluPacks).
#define OMNIRT_SWEEP_GEGLU_PACKS(X) \
  X(1)                              \
  X(2)                              \
  X(4)                              \
  X(8)

// softmax over 16-bit rows kept in shared memory ("sh"), the threads loading
// the row (the plugin's has the copy engine load it on sm_90 and later, as
// before sm_90 the threads with kernels/row_configs.h's kSharedRowPacks):
// packs each thread loads before it uses any.
#define OMNIRT_SWEEP_SHARED_PACKS(X) \
  X(2)                               \
  X(4)                               \
  X(8)

#endif  // OMNIRT_BENCH_CUDA_SWEEP_CONFIGS_H_
