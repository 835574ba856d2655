// The streaming reference kernels of cuda_kernel_bench: the least work that
// moves a case's bytes, y = x (the row ops read one tensor of the output's
// size) or y = a ^ b (geglu reads two), over 16-byte packs, each thread
// loading P packs of every input before it stores any, in a grid-stride
// loop, or with P 1 one pack a thread and no loop; launched as the plugin
// launches its kernels (overlap_launch, programmatic dependent launch). The
// fastest of them at a case's size is what a kernel of that size reaches on
// the GPU: the bench's measure of how far a named op's kernel is from the
// memory system's own limit.
// Names: omnirt_stream<inputs>_p<P>. Included by sweep_kernels.cu.
#ifndef OMNIRT_BENCH_CUDA_STREAM_KERNELS_CUH_
#define OMNIRT_BENCH_CUDA_STREAM_KERNELS_CUH_

#include "row_kernels.cuh"

namespace omnirt::cuda::kernels {

// Pack k of what a reference moves: x's, or a ^ b with two inputs.
template <int Inputs>
__device__ __forceinline__ uint4 stream_input(const uint4* __restrict__ a, const uint4* __restrict__ b,
                                              long long k) {
  uint4 v = a[k];
  if constexpr (Inputs == 2) {
    const uint4 w = b[k];
    v = {v.x ^ w.x, v.y ^ w.y, v.z ^ w.z, v.w ^ w.w};
  }
  return v;
}

template <int Inputs, int P>
__device__ void stream(const uint4* __restrict__ a, const uint4* __restrict__ b, uint4* __restrict__ y,
                       long long packs) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < packs; i += step * P) {
    uint4 v[P];
#pragma unroll
    for (int u = 0; u < P; ++u) {
      const long long k = i + u * step;
      if (k >= packs) continue;
      v[u] = stream_input<Inputs>(a, b, k);
    }
#pragma unroll
    for (int u = 0; u < P; ++u) {
      if (i + u * step < packs) y[i + u * step] = v[u];
    }
  }
}

// This thread's one pack, on a grid of a thread a pack: the loop's bounds
// checks and 64-bit steps come before a block's first load, and blocks this
// short spend a part of their lives there (H200, a copy of 32 MiB, three
// runs: 81.2-81.3% of peak so, 80.2-80.3% through stream's loop).
template <int Inputs>
__device__ void stream_one_pack(const uint4* __restrict__ a, const uint4* __restrict__ b,
                                uint4* __restrict__ y, long long packs) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < packs) y[i] = stream_input<Inputs>(a, b, i);
}

}  // namespace omnirt::cuda::kernels

#define OMNIRT_STREAM_KERNEL(INPUTS, P)                                                        \
  extern "C" __global__ void __launch_bounds__(omnirt::cuda::kernels::kElementwiseThreads)     \
      omnirt_stream##INPUTS##_p##P(const uint4* a, const uint4* b, uint4* y, long long packs) { \
    omnirt::cuda::kernels::overlap_launch();                                                   \
    if constexpr (P == 1) {                                                                    \
      omnirt::cuda::kernels::stream_one_pack<INPUTS>(a, b, y, packs);                          \
    } else {                                                                                   \
      omnirt::cuda::kernels::stream<INPUTS, P>(a, b, y, packs);                                \
    }                                                                                          \
  }

#define OMNIRT_STREAM_KERNELS(INPUTS) \
  OMNIRT_STREAM_KERNEL(INPUTS, 1)     \
  OMNIRT_STREAM_KERNEL(INPUTS, 2)     \
  OMNIRT_STREAM_KERNEL(INPUTS, 4)

OMNIRT_STREAM_KERNELS(1)
OMNIRT_STREAM_KERNELS(2)

#endif  // OMNIRT_BENCH_CUDA_STREAM_KERNELS_CUH_
