// layer_norm over rows kept in shared memory (row_configs.h: layer_norm's
// "sh"): a block per row, in the blocks of b4 (kSharedNormPacks packs a
// thread), the row held in `n * sizeof(T)` bytes of dynamic shared memory
// between its one read and its write, so that the registers b4 spends on the
// row hold the thread's weight and bias packs instead. On sm_90 and later
// the bulk-copy engine brings the row, issued by one thread, while every
// thread loads its weight and bias: none is loaded after the block's two
// reductions, where b4 waits on them (row_kernels.cuh's layer_norm_rows says
// how much that costs). Before sm_90 it is b4's code (the planner's choice
// there is the same). Rows are 16-byte aligned and n a multiple of kPack<T>.
// H200, cuda_kernel_bench, six runs in two calls: f16 / bf16 4096 x 4096
// 80.6-81.1 / 80.5-81.2% of peak, 1.00 of the streaming reference (itself
// 80.2-81.1% there), where b4 ran 73.9-75.6 / 73.9-74.6% (0.91-0.94);
// 32768 x 2048 86.5-87.2% (b4 85.4-86.0%). --sweep, in one call: 4096 x 4096 80.9-81.0
// / 81.2-81.4% against b4's 75.3-75.6 / 74.3-74.6; 32768 x 2048 86.5 /
// 86.7 against 85.3 / 85.0 (with f16's held packs read from shared memory
// element by element, since mended: held_floats).
#ifndef OMNIRT_PLUGINS_CUDA_KERNELS_SHARED_ROW_LAYER_NORM_CUH_
#define OMNIRT_PLUGINS_CUDA_KERNELS_SHARED_ROW_LAYER_NORM_CUH_

#include <cstdint>

#include "shared_rows.cuh"

namespace omnirt::cuda::kernels {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

// Blocks of kPreferredRowThreads an SM holds of the sm_90 kernel: 56
// registers a thread, where ptxas takes 57 unbounded, and 8 blocks fit.
constexpr int kSharedNormBlocksPerSm = 9;

// The blocks whose row starts in x's first kPrefetchedBytes have L2
// prefetch it before the wait for the previous kernel, and the first block
// the weight and bias (as b4's do: RowPrefetch::kFirstStepsBounded); each
// block launches its dependents once its last row's copy and its loads are
// issued. Whole: every thread's packs lie in the row (n is kSharedNormPacks
// x blockDim.x packs), so that no branch stands between them; statistics
// are multiplied by 1/n, taken before the wait, instead of divided by n on
// the block's critical path; the weight and bias are kept as read and
// converted as pack_floats does (bf16 by shift and mask).
// Diag probe (timed as cuda_kernel_bench, a process of its own, with the
// weight and bias hot in L2), H200, f16 / bf16 4096 x 4096, three runs
// each, against this kernel without the weight and bias prefetch and bf16's
// conversion (81.1-81.5 / 81.0-81.4% of peak): each pack guarded 79.4-79.8
// / 78.2-78.5%, guarded by clamped reads and selects 77.5-77.7 /
// 74.3-74.5%; dividing by n (and guarded) 77.0-77.4%; the dependents
// launched before the block's barrier (guarded) 77.4-77.7%; streaming
// stores (n at compile time) 1.2 points slower. --sweep (the bench's
// context, each input set a weight and bias of its own; f16 read element by
// element, as above), two runs each:
// without both 80.2-80.6 / 80.1%, with the prefetch alone 80.7-81.0 /
// 80.9-81.0, with bf16's conversion alone 80.1-80.4 / 80.7-80.9, with both
// (this kernel) 80.9-81.0 / 81.2-81.4.
template <class T, bool Whole>
__device__ __forceinline__ void layer_norm_bulk_copied(const T* __restrict__ x, const T* __restrict__ weight,
                                                       const T* __restrict__ bias, T* __restrict__ y,
                                                       long long rows, long long n, float eps) {
  constexpr int E = kPack<T>;
  uint4* const held = held_row();
  __shared__ std::uint64_t arrived;
  const int packs = int(n / E);
  const unsigned bytes = unsigned(n * sizeof(T));
  const float inverse_n = 1.f / float(n);
  if (threadIdx.x == 0) {
    barrier_init(&arrived);
    if (blockIdx.x * (long long)bytes < kPrefetchedBytes) prefetch_to_l2(x + blockIdx.x * n, bytes);
    prefetch_columns<T>(n, weight, bias);
  }
  wait_for_previous_kernel([] {});
  if (threadIdx.x == 0) bulk_copy(held, x + blockIdx.x * n, bytes, &arrived);
  uint4 w[kSharedNormPacks], b[kSharedNormPacks];
#pragma unroll
  for (int k = 0; k < kSharedNormPacks; ++k) {
    const int p = threadIdx.x + k * blockDim.x;
    w[k] = load_pack_if<Access::kCached>(Whole || p < packs, weight + p * E, uint4{});
    b[k] = load_pack_if<Access::kCached>(Whole || p < packs, bias + p * E, uint4{});
  }
  __syncthreads();  // the barrier is initialised before anyone waits on it
  // Pack k of this thread's, as floats, into v; false where it lies past the row.
  const auto held_pack = [&](int k, float (&v)[E]) {
    const int p = threadIdx.x + k * blockDim.x;
    if (!Whole && p >= packs) return false;
    held_floats<T>(held + p, v);
    return true;
  };
  unsigned phase = 0;
  for (long long row = blockIdx.x;; phase ^= 1u) {
    const long long next = row + gridDim.x;
    if (next >= rows) launch_dependents();
    barrier_wait(&arrived, phase);
    // The row's mean, then its squares about it (layer_norm_rows' 16-bit
    // blocks): the row's sum of f(element), over the block.
    const auto row_sum = [&](auto f) {
      float sum = 0.f;
#pragma unroll
      for (int k = 0; k < kSharedNormPacks; ++k) {
        float v[E];
        if (!held_pack(k, v)) continue;
#pragma unroll
        for (int e = 0; e < E; ++e) sum += f(v[e]);
      }
      return block_reduce(sum, Sum{});
    };
    const float mean = row_sum([](float v) { return v; }) * inverse_n;
    const float squares = row_sum([mean](float v) { return (v - mean) * (v - mean); });
    const float scale = rsqrtf(squares * inverse_n + eps);
    T* out = y + row * n;
#pragma unroll
    for (int k = 0; k < kSharedNormPacks; ++k) {
      float v[E], wk[E], bk[E];
      if (!held_pack(k, v)) continue;
      kept_floats<T>(w[k], wk);
      kept_floats<T>(b[k], bk);
#pragma unroll
      for (int e = 0; e < E; ++e) v[e] = (v[e] - mean) * scale * wk[e] + bk[e];
      store(out + (threadIdx.x + k * blockDim.x) * E, v);
    }
    if (next >= rows) break;
    row = next;
    __syncthreads();  // every thread is done with `held`
    if (threadIdx.x == 0) bulk_copy(held, x + row * n, bytes, &arrived);
  }
}

// The kernel's body: Whole where the row fills the block's packs.
template <class T>
__device__ void layer_norm_held_in_shared(const T* __restrict__ x, const T* __restrict__ weight,
                                          const T* __restrict__ bias, T* __restrict__ y, long long rows, long long n,
                                          float eps) {
  if (blockIdx.x >= rows) return;
  if (n == (long long)kSharedNormPacks * kPack<T> * blockDim.x) {
    layer_norm_bulk_copied<T, true>(x, weight, bias, y, rows, n, eps);
  } else {
    layer_norm_bulk_copied<T, false>(x, weight, bias, y, rows, n, eps);
  }
}

#endif

}  // namespace omnirt::cuda::kernels

// The plugin's layer_norm "sh" kernel of one dtype (kernels/ops.cu), in
// blocks of at most kPreferredRowThreads (the planner's b4 blocks that it
// takes). On sm_90 bounded to kSharedNormBlocksPerSm blocks of those per SM;
// before sm_90 b4's code (its dynamic shared memory unused) in b4's bounds.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define OMNIRT_SHARED_ROW_LAYER_NORM_BOUNDS __launch_bounds__(kPreferredRowThreads, kSharedNormBlocksPerSm)
#define OMNIRT_SHARED_ROW_LAYER_NORM_BODY(T) layer_norm_held_in_shared<T>(x, w, b, y, rows, n, eps)
#else
#define OMNIRT_SHARED_ROW_LAYER_NORM_BOUNDS __launch_bounds__(kMaxRowThreads)
#define OMNIRT_SHARED_ROW_LAYER_NORM_BODY(T)                                                            \
  layer_norm_rows<T, kSharedNormPacks, 0, 1, kConfigAccess<RowConfigList::EVERY, T, 0, kSharedNormPacks>, \
                  false>(x, w, b, y, rows, n, eps)
#endif
#define OMNIRT_SHARED_ROW_LAYER_NORM_KERNEL(dt, T)                                                \
  extern "C" __global__ void OMNIRT_SHARED_ROW_LAYER_NORM_BOUNDS omnirt_layer_norm_##dt##_sh(      \
      const T* x, const T* w, const T* b, T* y, long long rows, long long n, float eps) {         \
    OMNIRT_SHARED_ROW_LAYER_NORM_BODY(T);                                                         \
  }

#endif  // OMNIRT_PLUGINS_CUDA_KERNELS_SHARED_ROW_LAYER_NORM_CUH_
