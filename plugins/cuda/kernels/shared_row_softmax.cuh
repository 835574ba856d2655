// softmax over rows kept in shared memory (row_configs.h: "sh"): a block per
// row, the row held in `n * sizeof(T)` bytes of dynamic shared memory
// between its one read and its write, so that rows too long for registers
// are still read once. Rows are 16-byte aligned and n a multiple of
// kPack<T>. On sm_90 and later the row arrives by the bulk-copy engine
// (cp.async.bulk), issued by one thread: the whole row is in flight at once
// and the threads keep no registers for it. Before sm_90 the threads load it.
// H200, 4096 x 32000 (cuda_kernel_bench --sweep, two runs, us): f16 138.0
// and 140.3 copied against 142.1 and 141.6 loaded 4 packs a thread at a
// time; bf16 140.2 and 140.3 against 141.6 and 143.5. Loading 8 packs a
// thread ran bf16 137.9 and 138.5 but f16 142.1 and 139.7: not taken.
// Copying S rows ahead of the block's current one (S buffers, a persistent
// grid) ran no faster: 138.9-141.2 at S = 3; nor did holding the exps in
// registers (1024 threads, one exp an element instead of two): 139.3-140.1.
// Rows staged so for the norms ran slower than their register kernels:
// layer_norm 18-35% (f32 4096 x 4096 42.3 against 35.5), rms_norm 9%; but
// layer_norm's 16-bit rows of up to 4096 elements, copied by the engine and
// with the weight and bias in the registers the row had taken, run faster
// (shared_row_layer_norm.cuh).
#ifndef OMNIRT_PLUGINS_CUDA_KERNELS_SHARED_ROW_SOFTMAX_CUH_
#define OMNIRT_PLUGINS_CUDA_KERNELS_SHARED_ROW_SOFTMAX_CUH_

#include <cstdint>

#include "shared_rows.cuh"

namespace omnirt::cuda::kernels {

// Adds the held pack at `pack` to a thread's running (max, sum of exps).
template <class T>
__device__ __forceinline__ void add_pack(ExpSum& stats, const uint4* pack) {
  float v[kPack<T>];
  held_floats<T>(pack, v);
  add_to(stats, v);
}

// Writes softmax of the row held in shared memory to `out`, given its max
// and the inverse of its sum of exps.
template <class T>
__device__ __forceinline__ void write_held_softmax(const uint4* held, int packs, float top, float inverse,
                                                   T* out) {
  constexpr int E = kPack<T>;
  for (int p = threadIdx.x; p < packs; p += blockDim.x) {
    float v[E];
    held_floats<T>(held + p, v);
#pragma unroll
    for (int e = 0; e < E; ++e) v[e] = exp_flushed(v[e] - top) * inverse;
    store(out + p * E, v);
  }
}

// The threads load the row, P packs each before they use any, and keep
// their (max, sum of exps) as they go. The bench's sweep times several P.
template <class T, int P = kSharedRowPacks>
__device__ void softmax_shared(const T* __restrict__ x, T* __restrict__ y, long long rows, long long n) {
  constexpr int E = kPack<T>;
  uint4* const held = held_row();
  const int packs = int(n / E);
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const uint4* in = reinterpret_cast<const uint4*>(x + row * n);
    ExpSum mine = ExpSum::identity();
    for (int first = threadIdx.x; first < packs; first += P * blockDim.x) {
      uint4 raw[P];
#pragma unroll
      for (int u = 0; u < P; ++u) {
        const int p = first + u * blockDim.x;
        if (p < packs) raw[u] = in[p];
      }
#pragma unroll
      for (int u = 0; u < P; ++u) {
        const int p = first + u * blockDim.x;
        if (p >= packs) continue;
        held[p] = raw[u];
        add_pack<T>(mine, &raw[u]);
      }
    }
    const ExpSum total = block_merge(mine);
    write_held_softmax(held, packs, total.top, 1.f / total.sum, y + row * n);
    __syncthreads();  // the block's next row overwrites `held`
  }
}

// "sh" has L2 prefetch the block's first row (prefetch_first_row) before
// the row is copied or loaded: H200, cuda_kernel_bench, 4096 x 32000, bulk
// copied on sm_90, three runs each: f16 132.2-133.2 us against 138.3-140.4
// without (bf16 136.7-137.9 against 139.2-141.3); 133.4-135.0 prefetching
// right before the copy, after overlap_launch's wait; copying the row in
// four pieces instead of one (no prefetch) ran f16 141.0-141.2.

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

// The copy engine brings each row; the threads take its (max, sum of exps)
// from shared memory, then write.
template <class T>
__device__ void softmax_bulk_copied(const T* __restrict__ x, T* __restrict__ y, long long rows, long long n) {
  constexpr int E = kPack<T>;
  uint4* const held = held_row();
  __shared__ std::uint64_t arrived;
  const int packs = int(n / E);
  const unsigned bytes = unsigned(n * sizeof(T));
  if (threadIdx.x == 0) {
    barrier_init(&arrived);
    if (blockIdx.x < rows) bulk_copy(held, x + blockIdx.x * n, bytes, &arrived);
  }
  __syncthreads();  // the barrier is initialised before anyone waits on it
  unsigned phase = 0;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x, phase ^= 1u) {
    barrier_wait(&arrived, phase);
    ExpSum mine = ExpSum::identity();
    for (int p = threadIdx.x; p < packs; p += blockDim.x) add_pack<T>(mine, held + p);
    const ExpSum total = block_merge(mine);
    write_held_softmax(held, packs, total.top, 1.f / total.sum, y + row * n);
    __syncthreads();  // every thread is done with `held`
    const long long next = row + gridDim.x;
    if (threadIdx.x == 0 && next < rows) bulk_copy(held, x + next * n, bytes, &arrived);
  }
}

#endif

}  // namespace omnirt::cuda::kernels

// The plugin's "sh" kernel of one dtype (kernels/ops.cu): copied by the
// engine where there is one.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define OMNIRT_SHARED_ROW_SOFTMAX_BODY(T) softmax_bulk_copied<T>(x, y, rows, n)
#else
#define OMNIRT_SHARED_ROW_SOFTMAX_BODY(T) softmax_shared<T>(x, y, rows, n)
#endif
#define OMNIRT_SHARED_ROW_SOFTMAX_KERNEL(dt, T)                                                   \
  extern "C" __global__ void __launch_bounds__(kSharedRowThreads)                                 \
      omnirt_softmax_##dt##_sh(const T* x, T* y, long long rows, long long n, long long) {        \
    overlap_launch([=] { prefetch_first_row(x, rows, n); });                                      \
    OMNIRT_SHARED_ROW_SOFTMAX_BODY(T);                                                            \
  }

#endif  // OMNIRT_PLUGINS_CUDA_KERNELS_SHARED_ROW_SOFTMAX_CUH_
