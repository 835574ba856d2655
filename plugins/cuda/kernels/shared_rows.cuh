// What the kernels that hold their rows in shared memory share (softmax's
// and layer_norm's "sh": shared_row_softmax.cuh, shared_row_layer_norm.cuh):
// the buffer that holds the row, reading a held (or kept) pack as floats,
// and on sm_90 and later the bulk-copy engine (cp.async.bulk) that brings a
// row into the buffer, issued by one thread, completing an mbarrier's phase
// when every byte has arrived.
#ifndef OMNIRT_PLUGINS_CUDA_KERNELS_SHARED_ROWS_CUH_
#define OMNIRT_PLUGINS_CUDA_KERNELS_SHARED_ROWS_CUH_

#include <cstdint>
#include <type_traits>

#include "row_kernels.cuh"

namespace omnirt::cuda::kernels {

// The block's dynamic shared memory, where its row is held: 128-byte
// aligned, as the lines the bulk-copy engine writes. 16-byte aligned (after
// the kernels' static shared memory) it ran layer_norm's "sh" 5% slower
// (diag probe, H200, f16 4096 x 4096: 73.5% of peak against 77.4%).
__device__ __forceinline__ uint4* held_row() {
  extern __shared__ __align__(128) uint4 row[];
  return row;
}

// The 16 bytes of a pack of T as floats; held_floats: the held pack at `pack`,
// read as one 16-byte access (reading its elements one by one from shared
// memory ran bf16 4096 x 32000 1.4x slower on the H200). A bf16 is the high
// half of its float, so bf16 converts a word's pair at once, its low element
// shifted up and its high one masked: one instruction an element, where
// row_kernels.cuh's unpack() (through __bfloat162float) takes 1.5, PRMT to
// extract, then shift (ncu, H200: bf16 ran 5.4% more instructions than f16 here
// so; cuda_kernel_bench, 4096 x 32000: 131.3-131.8 us against 136.7-137.4). Not
// in unpack() itself: in the register kernels ptxas then gave layer_norm bf16
// g16r4 77 registers instead of 64, a block per SM fewer.
template <class T>
__device__ __forceinline__ void pack_floats(const uint4& raw, float (&out)[kPack<T>]) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const unsigned words[] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      out[2 * w] = __uint_as_float(words[w] << 16);
      out[2 * w + 1] = __uint_as_float(words[w] & 0xffff0000u);
    }
  } else {
    unpack<T>(raw, out);
  }
}
template <class T>
__device__ __forceinline__ void held_floats(const uint4* pack, float (&out)[kPack<T>]) {
  // One 16-byte read: f16's unpack() of *pack itself read it element by
  // element (H200, cuda_kernel_bench: softmax f16 4096 x 32000 134.0 us
  // against 130.7-131.0).
  const uint4 raw = *pack;
  pack_floats<T>(raw, out);
}

// A pack a thread keeps in registers across its rows (layer_norm's "sh":
// the weight and bias) as floats, converted as pack_floats does, afresh at
// each use (fresh_copy, as Held<T, true>::get).
template <class T>
__device__ __forceinline__ void kept_floats(const uint4& kept, float (&out)[kPack<T>]) {
  pack_floats<T>(fresh_copy(kept), out);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

// Initialises the barrier at `barrier` for one arrival a phase (the thread
// that starts the copies): before the block's first bulk_copy, whose proxy
// fence also makes it visible to the engine, and before the block's barrier
// that lets the other threads wait on it.
__device__ __forceinline__ void barrier_init(std::uint64_t* barrier) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barrier)) : "memory");
}

// Starts copying `bytes` (a multiple of 16) from global `from` into shared
// `to`; the barrier's current phase completes when they have all arrived.
__device__ __forceinline__ void bulk_copy(void* to, const void* from, unsigned bytes, std::uint64_t* barrier) {
  // The block's earlier reads of `to` (generic proxy) come before the copy's writes (async proxy).
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(to)),
               "l"(from), "r"(bytes), "r"(shared_address(barrier))
               : "memory");
}

// Waits until the barrier's phase of parity `phase` has completed.
__device__ __forceinline__ void barrier_wait(std::uint64_t* barrier, unsigned phase) {
  unsigned done;
  do {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(shared_address(barrier)), "r"(phase)
                 : "memory");
  } while (!done);
}

#endif

}  // namespace omnirt::cuda::kernels

#endif  // OMNIRT_PLUGINS_CUDA_KERNELS_SHARED_ROWS_CUH_
