// The device code of the omnirt.nn kernels: templates over the element type
// and, for the row ops, the register configuration (row_configs.h) and how
// the row is read and written (Access). kernels/ops.cu instantiates the
// plugin's kernels from them (OMNIRT_ROW_CONFIG_KERNELS, OMNIRT_DTYPE_KERNELS);
// bench/cuda/sweep_kernels.cu instantiates candidate configurations for the
// kernel benchmark's --sweep, so that what the sweep times is this code.
//
// Same semantics as the cpu reference kernels (plugins/cpu/ops/kernels.h);
// f16 and bf16 are read and written in their type and accumulated in f32.
// Memory-bound, so every kernel moves each byte once where it can: 16-byte
// loads and stores, a row kept in registers between its reduction and its
// output (row_configs.h says how a row is spread over threads; f16/bf16 rows
// may be held in their 16-bit form, Held below), reductions
// through warp shuffles (and shared memory across the warps of a block), and
// grids sized to the GPU by the planner (launch_plan.cpp), walking rows in
// grid-stride loops.
#ifndef OMNIRT_PLUGINS_CUDA_KERNELS_ROW_KERNELS_CUH_
#define OMNIRT_PLUGINS_CUDA_KERNELS_ROW_KERNELS_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "row_configs.h"

namespace omnirt::cuda::kernels {

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}

// Elements of T in one 16-byte pack.
template <class T>
constexpr int kPack = kPackBytes / int(sizeof(T));

// How a row kernel reads its input and writes its output. kStreaming marks
// both as touched once (ld.global.cs, st.global.cs: evict first), so that L2
// keeps what is read again (weight, bias); kCached is the default policy.
// row_configs.h's row_config_streams says which of the plugin's kernels
// stream: the 16-bit ones holding rows as floats (up to 7.7% faster, at 64
// MiB) but softmax's and layer_norm's b4, and the f32 wide ones; those whose
// blocks prefetch their first rows ran faster cached (row_config_streams,
// row_list_streams). Both halves or neither: in cuda_kernel_bench
// on one H200, the streaming kernels streaming their loads alone ran up to 9%
// slower (4096 x 4096 rms_norm 8.8%), and every kernel streaming its stores
// alone up to 9% slower than as chosen here, none of the 54 cases faster by
// more than 0.2%. Reading x without allocating it in L1
// (ld.global.nc.L1::no_allocate), so that L1 would keep the weight and bias
// each row reads again, ran 0-4% slower in the sweep (H200, the layer_norm
// cases under 80% of peak).
enum class Access { kCached, kStreaming };

// The Access of the plugin's kernel of configuration (LANES, V) of list L of
// row_configs.h over T.
template <RowConfigList L, class T, int LANES, int V>
constexpr Access kConfigAccess =
    row_config_streams(L, int(sizeof(T)), LANES, V) ? Access::kStreaming : Access::kCached;

// The elements of a 16-byte pack of T as floats.
template <class T, int E>
__device__ __forceinline__ void unpack(const uint4& raw, float (&out)[E]) {
  static_assert(E == kPack<T>, "a pack is 16 bytes");
  const T* elements = reinterpret_cast<const T*>(&raw);
#pragma unroll
  for (int e = 0; e < E; ++e) out[e] = to_float(elements[e]);
}

// E elements at p as floats: one 16-byte access when E fills a pack (p is
// then 16-byte aligned), a scalar one when E is 1.
template <Access A = Access::kCached, class T, int E>
__device__ __forceinline__ void load(const T* p, float (&out)[E]) {
  if constexpr (E == 1) {
    out[0] = to_float(A == Access::kStreaming ? __ldcs(p) : *p);
  } else {
    const uint4* pack = reinterpret_cast<const uint4*>(p);
    unpack<T>(A == Access::kStreaming ? __ldcs(pack) : *pack, out);
  }
}

// 16 bytes holding T(value) in every element.
template <class T>
__device__ __forceinline__ uint4 pack_of(float value) {
  uint4 raw;
  T* elements = reinterpret_cast<T*>(&raw);
#pragma unroll
  for (int e = 0; e < kPack<T>; ++e) elements[e] = from_float<T>(value);
  return raw;
}

// The 16 bytes at p (16-byte aligned) where `taken`, else `otherwise`: a
// predicated load in the PTX itself, so that the row kernels' loads are
// issued together by construction. A load guarded by an `if` is a branch
// around it in the PTX, and whenever the code around such loads changed,
// ptxas issued some of a row's loads only after the first ones' data had
// come back (H200, cuobjdump: with rms_norm dividing by n approximately, f16
// b4 issued its fourth load after converting the first three, and ran 24%
// slower; layer_norm f32 w1 its second row's load after the first row's
// shuffles). Against the guarded loads (cuda_kernel_bench, two calls in
// opposite orders): layer_norm's b4 kernels 0.7-1.7% faster, softmax's
// 16-bit rows of 128 1.0-2.0% and rms_norm 16-bit 4096 x 4096 0.6-1.1%
// slower, the other kernels it alone changes within +-0.7% (the norms'
// groups: divide_statistic). Volatile, so that it stays after
// overlap_launch's wait.
#define OMNIRT_PREDICATED_LOAD(LD, v, p, taken)                                         \
  asm volatile("{ .reg .pred q; setp.ne.u32 q, %5, 0; @q " LD " {%0, %1, %2, %3}, [%4]; }" \
               : "+r"(v.x), "+r"(v.y), "+r"(v.z), "+r"(v.w)                             \
               : "l"(p), "r"(unsigned(taken))                                           \
               : "memory")
template <Access A>
__device__ __forceinline__ uint4 load_pack_if(bool taken, const void* p, uint4 otherwise) {
  uint4 v = otherwise;
  if constexpr (A == Access::kStreaming) {
    OMNIRT_PREDICATED_LOAD("ld.global.cs.v4.u32", v, p, taken);
  } else {
    OMNIRT_PREDICATED_LOAD("ld.global.v4.u32", v, p, taken);
  }
  return v;
}
#undef OMNIRT_PREDICATED_LOAD

// Two floats as a pair of 16-bit T in one word, lo first: one conversion
// instruction for both (F2FP), where converting each takes one apiece.
__device__ __forceinline__ unsigned pair_bits(__half, float lo, float hi) {
  const __half2 pair = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&pair);
}
__device__ __forceinline__ unsigned pair_bits(__nv_bfloat16, float lo, float hi) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&pair);
}

template <Access A = Access::kCached, class T, int E>
__device__ __forceinline__ void store(T* p, const float (&in)[E]) {
  if constexpr (E == 1) {
    if constexpr (A == Access::kStreaming) {
      __stcs(p, from_float<T>(in[0]));
    } else {
      *p = from_float<T>(in[0]);
    }
  } else {
    static_assert(E == kPack<T>, "a pack is 16 bytes");
    uint4 raw;
    if constexpr (sizeof(T) == 2) {
      unsigned* words = reinterpret_cast<unsigned*>(&raw);
#pragma unroll
      for (int w = 0; w < E / 2; ++w) words[w] = pair_bits(T(), in[2 * w], in[2 * w + 1]);
    } else {
      T* elements = reinterpret_cast<T*>(&raw);
#pragma unroll
      for (int e = 0; e < E; ++e) elements[e] = from_float<T>(in[e]);
    }
    if constexpr (A == Access::kStreaming) {
      __stcs(reinterpret_cast<uint4*>(p), raw);
    } else {
      *reinterpret_cast<uint4*>(p) = raw;
    }
  }
}

// Programmatic dependent launch (sm_90 and later), the first thing every
// kernel here does: launch_dependents lets the next kernel on the stream be
// scheduled onto SMs as this one's blocks finish instead of after the last
// of them, and wait holds this kernel until the work before it on the stream
// has completed and its writes are visible, so that no global memory is read
// early. The plugin launches with programmatic stream serialization on
// sm_90 and later; launched without it, both are no-ops. (The H100's 64 MiB
// cases, ~25 us kernels: 76% of peak without, 83% with; a plain copy of the
// same bytes 77% and 84%.) `before_wait` runs between the two (sm_90 and
// later; neither runs before): nothing that reads memory the previous kernel
// may write, but prefetch_to_l2 may. The two halves apart below: the row
// kernels launch their dependents first (those that prefetch later:
// RowPrefetch) and wait in begin_steps, after setting up their first step.
__device__ __forceinline__ void launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}
template <class BeforeWait>
__device__ __forceinline__ void wait_for_previous_kernel(BeforeWait before_wait) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  before_wait();
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
template <class BeforeWait>
__device__ __forceinline__ void overlap_launch(BeforeWait before_wait) {
  launch_dependents();
  wait_for_previous_kernel(before_wait);
}
__device__ __forceinline__ void overlap_launch() {
  overlap_launch([] {});
}

// Has L2 fetch `bytes` (a multiple of 16) at `at` (16-byte aligned): one
// bulk prefetch (sm_90 and later; nothing before). A hint that changes
// nothing any load reads, so it may come before overlap_launch's wait even
// where the previous kernel writes those bytes: every global write reaches
// L2, the point of coherence, and the loads after the wait see it.
// Used by softmax's "sh" (shared_row_softmax.cuh says why), layer_norm's
// f32 blocks and the f32 groups of short rows (RowPrefetch). H200,
// cuda_kernel_bench, measured and not kept: every kernel prefetching its
// block's first rows before the wait ran the 64 MiB cases 3-6% slower and
// geglu 2-3% (the streaming references so gained nothing), f32 rows of 8192
// 1.5% faster; layer_norm f32's k8 prefetching its block's next row each
// step, before or after this row's loads, ran 4096 x 32000 6% and 3.7%
// slower. Computed inline in the row kernels, the prefetch's address also
// changed how ptxas compiled them (up to 35 registers more). Nor a bounded
// one, though it takes ~0.9 us off a plain copy of 32 MiB (17.23 -> 16.35
// us, diag kernels): the first blocks' first 4 MiB, with the row kernels
// launching their dependents once their loads were back (not first thing,
// which in a grid of two waves brings the next kernel, and its prefetch,
// half the kernel early: 16-bit rms_norm and softmax 4096 x 4096 2.5-3.4%
// slower so, one run). Against HEAD in one call, two runs each: the 32 MiB
// cases 4-8% faster, rms_norm f32 65536 x 128, layer_norm f32 65536 x 128
// and 4096 x 4096 and softmax f32 4096 x 4096 1.3-3.6%, but layer_norm f32
// 4096 x 32000 2.1%, 16-bit layer_norm 4096 x 4096 and 32768 x 2048
// 0.8-2.2%, 16-bit softmax 16384 x 8192 1.5% and softmax f32 524288 x 128
// 1.1% slower, the last then no faster than ATen.
__device__ __forceinline__ void prefetch_to_l2(const void* at, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(at), "r"(bytes));
#endif
}

// The shared-window address of p (a pointer into shared memory), as the
// .shared instructions take it.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return unsigned(__cvta_generic_to_shared(p));
}

// Has L2 fetch the block's first row of x (rows of n; its only one on a grid
// of a block per row, the plugin's), by the block's first thread: a kernel
// of a row a block asks so before its wait for the previous kernel.
template <class T>
__device__ __forceinline__ void prefetch_first_row(const T* x, long long rows, long long n) {
  if (threadIdx.x == 0 && blockIdx.x < rows) prefetch_to_l2(x + blockIdx.x * n, unsigned(n * sizeof(T)));
}

// e^x for softmax: ex2.approx.ftz of x log2(e), one multiply and one MUFU.
// __expf is the same approximation but, compiled without -ftz, also steers
// results below FLT_MIN around the flush, which costs instructions on every
// element; softmax's outputs are compared at 2e-5 or coarser, and e^x below
// 1.2e-38 is 0 to them. -inf gives 0, NaN stays NaN.
__device__ __forceinline__ float exp_flushed(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
  return y;
}

struct Sum {
  __device__ float operator()(float a, float b) const { return a + b; }
  __device__ static float identity() { return 0.f; }
};
struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
  __device__ static float identity() { return -INFINITY; }
};

// A copy of `kept` through volatile moves, which nvcc neither drops nor
// hoists: what is computed from it is computed again at each use, so that a
// pack kept in registers stays 16 bytes there, not the floats made of it.
__device__ __forceinline__ uint4 fresh_copy(const uint4& kept) {
  uint4 copy;
  asm volatile("mov.b32 %0, %1;" : "=r"(copy.x) : "r"(kept.x));
  asm volatile("mov.b32 %0, %1;" : "=r"(copy.y) : "r"(kept.y));
  asm volatile("mov.b32 %0, %1;" : "=r"(copy.z) : "r"(kept.z));
  asm volatile("mov.b32 %0, %1;" : "=r"(copy.w) : "r"(kept.w));
  return copy;
}

// How a register configuration holds one pack of its row between passes: as
// E floats, which a pass may transform in place for the next (keep), or
// (Packed, for f16/bf16) as the 16 bytes read, converted to floats on each
// pass and never changed (keep does nothing; a later pass transforms again):
// half the registers, so that more blocks fit on an SM.
template <class T, bool Packed>
struct Held {
  static constexpr int E = kPack<T>;
  float f[E];
  // The pack at p where `taken`, else `otherwise` in every element.
  template <Access A>
  __device__ void load_if(bool taken, const T* p, float otherwise) {
    unpack<T>(load_pack_if<A>(taken, p, pack_of<T>(otherwise)), f);
  }
  __device__ void get(float (&out)[E]) const {
#pragma unroll
    for (int e = 0; e < E; ++e) out[e] = f[e];
  }
  __device__ void keep(const float (&in)[E]) {
#pragma unroll
    for (int e = 0; e < E; ++e) f[e] = in[e];
  }
};
template <class T>
struct Held<T, true> {
  static_assert(sizeof(T) == 2, "f16 or bf16");
  static constexpr int E = kPack<T>;
  uint4 raw;
  template <Access A>
  __device__ void load_if(bool taken, const T* p, float otherwise) {
    raw = load_pack_if<A>(taken, p, pack_of<T>(otherwise));
  }
  // Converts afresh on each pass (fresh_copy): left to itself, nvcc
  // converts once and keeps the floats, which undoes the packing.
  __device__ void get(float (&out)[E]) const { unpack<T>(fresh_copy(raw), out); }
  __device__ void keep(const float (&)[E]) {}
};

// __shfl_xor_sync of a float, or of each float of a struct of floats.
template <class S>
__device__ __forceinline__ S shuffle_xor(const S& value, int offset) {
  static_assert(sizeof(S) % sizeof(float) == 0, "a float or a struct of floats");
  S out;
  const float* in = reinterpret_cast<const float*>(&value);
  float* to = reinterpret_cast<float*>(&out);
#pragma unroll
  for (int i = 0; i < int(sizeof(S) / sizeof(float)); ++i) {
    to[i] = __shfl_xor_sync(0xffffffffu, in[i], offset);
  }
  return out;
}

// Every lane of the warp gets op() of all its lanes' values (a float or a
// struct of floats): five rounds of shuffles.
template <class S, class Op>
__device__ __forceinline__ S warp_reduce(S value, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) value = op(value, shuffle_xor(value, offset));
  return value;
}

// Every thread of the block gets the merge of all threads' `value`s: each
// warp merges its lanes' (of_warp(v): the warp's merge, in every lane), then
// every warp the warps' (lanes past them: `identity`, which merges as
// nothing). blockDim.x is a multiple of 32; every thread of the block must
// call it. Every thread merging the warps' partials itself, a loop over
// shared memory in place of the second of_warp, ran slower (H200,
// cuda_kernel_bench, three runs each on like GPUs): f32 layer_norm 4096 x
// 32000 (1024 threads) 7%, 16384 x 8192 (512) 4%, rms_norm's 4096 x 32000
// 2%, 16-bit softmax 4096 x 4096 (128) 17.7 -> 17.9 us, the others within
// 1.2% (geglu, which merges nothing, 0.3% slower on that GPU). Nor did a
// second of_warp of only log2(warps) rounds, each run of `warps` lanes
// holding every partial (diag probe, 16-bit 4096 x 4096: softmax f16 79.3-
// 79.4% of peak against 79.6-79.8, bf16 76.2-76.3 against 79.6-79.7,
// layer_norm 0.2-0.3 points slower).
template <class S, class OfWarp>
__device__ S block_merge_by(S value, S identity, OfWarp of_warp) {
  __shared__ S partial[32];
  value = of_warp(value);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // `partial` may still be read by a previous reduction
  if (lane == 0) partial[warp] = value;
  __syncthreads();
  return of_warp(lane < int(blockDim.x >> 5) ? partial[lane] : identity);
}

template <class Op>
__device__ float block_reduce(float value, Op op) {
  return block_merge_by(value, Op::identity(), [op](float v) { return warp_reduce(v, op); });
}

// The block's merge of statistics S (ExpSum, Moments below) by S::of_warp.
template <class S>
__device__ S block_merge(S value) {
  return block_merge_by(value, S::identity(), [](S v) { return S::of_warp(v); });
}

// Reduces each of R values over the threads that share its row: LANES
// neighbouring lanes of a warp (every lane of the warp calls it, in step),
// or with LANES 0 the whole block. The R rows' shuffles interleave.
template <int LANES, int R, class Op>
__device__ __forceinline__ void row_reduce(float (&values)[R], Op op) {
  if constexpr (LANES > 0) {
#pragma unroll
    for (int offset = LANES / 2; offset > 0; offset >>= 1) {
#pragma unroll
      for (int r = 0; r < R; ++r) values[r] = op(values[r], shuffle_xor(values[r], offset));
    }
  } else {
#pragma unroll
    for (int r = 0; r < R; ++r) values[r] = block_reduce(values[r], op);
  }
}

// A row's softmax statistics over some of its elements: their max and the
// sum of exp(x - max).
struct ExpSum {
  float top, sum;
  __device__ static ExpSum identity() { return {-INFINITY, 0.f}; }
  // The warp's statistics, in every lane: its max first, then the lanes'
  // sums rescaled to it, one exp a lane (merging pairs, rescaling both sums
  // to the larger max, takes two a round: H200, cuda_kernel_bench, 16-bit
  // softmax 4096 x 4096 in 2.7-3.7% less time so).
  __device__ static ExpSum of_warp(ExpSum lane) {
    const float top = warp_reduce(lane.top, Max{});
    // exp(-inf - -inf) would be NaN; a lane of none adds 0 (its sum is 0).
    const float rescaled = lane.top == -INFINITY ? 0.f : lane.sum * exp_flushed(lane.top - top);
    return {top, warp_reduce(rescaled, Sum{})};
  }
};

// Adds E more elements to a thread's running softmax statistics in one
// pass: the sum is rescaled when they raise the max.
template <int E>
__device__ __forceinline__ void add_to(ExpSum& stats, const float (&v)[E]) {
  float grown = stats.top;
#pragma unroll
  for (int e = 0; e < E; ++e) grown = fmaxf(grown, v[e]);
  if (grown == -INFINITY) return;  // exp(-inf - -inf) is NaN; these add 0
  stats.sum *= exp_flushed(stats.top - grown);
  stats.top = grown;
#pragma unroll
  for (int e = 0; e < E; ++e) stats.sum += exp_flushed(v[e] - stats.top);
}

// layer_norm's statistics over some of a row's elements: their count, mean
// and sum of squared deviations from it.
struct Moments {
  float count, mean, deviations;
  __device__ static Moments identity() { return {0.f, 0.f, 0.f}; }
  // The warp's statistics, in every lane, by plain sums: each lane's mean is
  // taken about lane 0's (`shift`), so that with d its mean less the shift,
  // a lane adds its count c, c d, and its deviations plus c d^2; the warp's
  // deviations are that last sum less (sum c d)^2 / (sum c). The subtraction
  // cancels only the spread B of the lanes' means about the warp's, not the
  // mean itself: lane 0 holds the most elements, so (sum c d)^2 / (sum c) is
  // at most 32 B, and the difference keeps all but ~6 bits of its precision.
  // H200, cuda_kernel_bench: 16-bit layer_norm 4096 x 4096 and 32768 x 2048
  // in 2.5-5.1% less time than by merging pairs as Chan et al. do (a
  // division a round).
  __device__ static Moments of_warp(Moments lane) {
    struct Sums {
      float count, offsets, squares;
    };
    const float shift = __shfl_sync(0xffffffffu, lane.mean, 0), d = lane.mean - shift;
    const Sums sums = warp_reduce(Sums{lane.count, lane.count * d, lane.deviations + lane.count * d * d},
                                  [](const Sums& a, const Sums& b) -> Sums {
                                    return {a.count + b.count, a.offsets + b.offsets, a.squares + b.squares};
                                  });
    if (sums.count == 0.f) return identity();
    // __fdividef: 2 ulp in a few instructions, where '/' spends a dozen.
    const float mean_offset = __fdividef(sums.offsets, sums.count);
    return {sums.count, shift + mean_offset, fmaxf(sums.squares - sums.offsets * mean_offset, 0.f)};
  }
};

// Groups of lanes (short rows) reduce a row's statistics one at a time, by
// shuffles alone; a block merges each thread's statistics of its part of the
// row in one reduction instead of paying a round of barriers for each. (H100:
// 4096-wide f16 softmax 76% -> 80% of peak merged; merging in groups was
// slower, f32 softmax over rows of 128 82% -> 74%.)

// Most packs a thread of a whole-block configuration that sets up its first
// step before the wait (RowSlice::kAnchored): more spend registers on the
// addresses (softmax f32 b16: 94 -> 128, spilling 168 bytes).
constexpr int kAnchoredPacks = 4;

// This thread's place in a register configuration (row_configs.h): the R
// rows its group works on in the current step of the grid-stride loop, and
// which packs of them it holds. Every thread of a block takes every step, so
// that the shuffles and barriers of row_reduce see all of them.
template <class T, int V, int LANES, int R, Access A, bool Packed>
struct RowSlice {
  static constexpr int E = kPack<T>;
  // Whether the block's first step is set up before the wait for the
  // previous kernel (begin_steps: its load addresses and predicates, which
  // ptxas otherwise computes after the wait, 60-90 instructions between it
  // and the first load). H200, cuda_kernel_bench, three runs each against
  // waiting first: rms_norm 16-bit 4096 x 4096 (b4) 78.6-78.8% -> 80.1-80.6%
  // of peak, softmax 16-bit rows of 128 (g16) 1.2-3.0% faster, layer_norm
  // f32 65536 x 128 (w1) 77.7-77.8% -> 78.3-78.7%. 16-bit blocks of up to
  // kAnchoredPacks packs, and groups holding two packs a thread: f32's
  // blocks ran 0.2-0.6% slower so (rms_norm 4096 x 4096 the most), more
  // rows or packs a group took up to 14 registers more (layer_norm f16
  // g16r4 64 -> 76: 3 blocks of 256 per SM instead of 4), and w1r1's one
  // pack ran softmax f32 524288 x 128 0.7% slower. Not separated: rms_norm's
  // 16-bit b4 so takes 74 registers (64 before), 6 blocks per SM instead of
  // 8, and in the diag probe the same kernel at 64 registers (dividing by n
  // approximately) gained 0.4 points where it gained 1.8.
  static constexpr bool kAnchored =
      (LANES == 0 && V <= kAnchoredPacks && sizeof(T) == 2) || (LANES > 0 && R * V == 2);
  using Pack = Held<T, Packed>;
  using Packs = Pack[R][V];  // this thread's packs of its rows in one step
  const int lanes = LANES > 0 ? LANES : int(blockDim.x);
  const int lane = LANES > 0 ? int(threadIdx.x) % LANES : int(threadIdx.x);
  const long long groups = LANES > 0 ? blockDim.x / LANES : 1;
  const long long group = LANES > 0 ? threadIdx.x / LANES : 0;
  const int n;                // row length; at most lanes * V * E, so an int
  long long offset[R] = {};   // of each of this step's rows
  bool valid[R] = {};         // is there such a row?
  // Where kAnchored, this step's packs of x and whether each is in its row,
  // as the loads take them.
  const T* pack_at[R][V] = {};
  unsigned taken[R][V] = {};

  __device__ explicit RowSlice(long long row_length) : n(int(row_length)) {}

  // Rows per block and step, and the first row of this block's first step.
  __device__ long long rows_per_step() const { return groups * R; }
  __device__ long long first_step() const { return blockIdx.x * rows_per_step(); }
  __device__ long long step() const { return gridDim.x * rows_per_step(); }
  // Moves to the step that starts at row `first` of x: the group's R rows
  // follow each other, so that together they are one stretch of memory.
  __device__ void at(long long first, long long rows, const T* x) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const long long row = first + group * R + r;
      valid[r] = row < rows;
      offset[r] = row * n;
      if constexpr (kAnchored) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          pack_at[r][k] = x + offset[r] + column(k);
          taken[r][k] = holds(r, k);
        }
      }
    }
  }
  // Shared stores of the loads' addresses and predicates (kAnchored): placed
  // before begin_steps' wait, they keep their computation before it, where
  // ptxas otherwise issues the wait first and computes them after it.
  __device__ void anchor() const {
    static_assert(kAnchored, "the addresses are kept where kAnchored");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ unsigned long long sink;
    const unsigned to = shared_address(&sink);
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        asm volatile("st.shared.b64 [%0], %1;" ::"r"(to), "l"(pack_at[r][k]) : "memory");
        asm volatile("st.shared.b32 [%0], %1;" ::"r"(to), "r"(taken[r][k]) : "memory");
      }
    }
#endif
  }
  // Column of pack k; the whole pack is in the row when column < n (n % E == 0).
  __device__ int column(int k) const { return (k * lanes + lane) * E; }
  __device__ bool holds(int r, int k) const { return valid[r] && column(k) < n; }
  // Elements of row r this thread holds.
  __device__ float held(int r) const {
    float count = 0.f;
#pragma unroll
    for (int k = 0; k < V; ++k) count += holds(r, k) ? float(E) : 0.f;
    return count;
  }

  // Loads this thread's packs of its rows of x; packs outside them get
  // `fill`. Loads only (predicated: load_pack_if): all R * V of them are in
  // flight before the first use.
  __device__ void load_rows(const T* x, float fill, Pack (&v)[R][V]) const {
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        if constexpr (kAnchored) {
          v[r][k].template load_if<A>(taken[r][k], pack_at[r][k], fill);
        } else {
          v[r][k].template load_if<A>(holds(r, k), x + offset[r] + column(k), fill);
        }
      }
    }
  }
};

// For each of the R rows, op over f(element) of this thread's packs, one
// accumulator a row. Four accumulators a row (element e of a pack into
// e % 4, merged as a tree, here and in transform_reduce), a quarter of the
// dependent adds each, ran every case within the noise of one (H200,
// cuda_kernel_bench, two runs: each case's fraction of its streaming
// reference within +-0.01 of before, the norms' 64 MiB rows included).
template <class Op, int R, int V, class Pack, class F>
__device__ __forceinline__ void thread_reduce(const Pack (&v)[R][V], float (&out)[R], Op op, F f) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    out[r] = Op::identity();
#pragma unroll
    for (int k = 0; k < V; ++k) {
      float p[Pack::E];
      v[r][k].get(p);
#pragma unroll
      for (int e = 0; e < Pack::E; ++e) out[r] = op(out[r], f(p[e]));
    }
  }
}

// A pass over this thread's packs: step(r, in_row, element, out[r])
// transforms each element in place and adds to out[r]; the transformed packs
// are kept (Held::keep) for the next pass.
template <class Slice, int R, int V, class Pack, class Step>
__device__ __forceinline__ void transform_reduce(const Slice& s, Pack (&v)[R][V], float (&out)[R],
                                                 Step step) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const bool in_row = s.holds(r, k);
      float p[Pack::E];
      v[r][k].get(p);
#pragma unroll
      for (int e = 0; e < Pack::E; ++e) step(r, in_row, p[e], out[r]);
      v[r][k].keep(p);
    }
  }
}

// Writes this thread's packs of its rows to y, each first transformed by
// finish(r, k, column, pack) in place (pack k of the thread, at `column`: the
// elements as floats).
// Unguarded: finish runs for packs outside the rows too (their stores alone
// are skipped), so that no branch stands between one pack's loads in finish
// and the next's.
template <Access A, bool Unguarded = false, class Slice, class T, int R, int V, class Pack, class F>
__device__ __forceinline__ void store_rows(const Slice& s, T* y, const Pack (&v)[R][V], F finish) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      if (!Unguarded && !s.holds(r, k)) continue;
      float p[Pack::E];
      v[r][k].get(p);
      finish(r, k, s.column(k), p);
      if (Unguarded && !s.holds(r, k)) continue;
      store<A>(y + s.offset[r] + s.column(k), p);
    }
  }
}

// --- register configurations: one read of each row --------------------------

// Waits for the previous kernel (wait_for_previous_kernel, before_wait
// first); false: the block has no rows. Where kAnchored, s first moves to
// the block's first step, its load addresses computed before the wait
// (RowSlice::anchor); otherwise for_each_step moves it.
template <class Slice, class T, class BeforeWait>
__device__ __forceinline__ bool begin_steps(Slice& s, const T* x, long long rows,
                                            BeforeWait before_wait) {
  if (s.first_step() >= rows) return false;
  if constexpr (Slice::kAnchored) {
    s.at(s.first_step(), rows, x);
    s.anchor();
  }
  wait_for_previous_kernel(before_wait);
  return true;
}

// What a register configuration's blocks have L2 prefetch before their wait
// for the previous kernel (start_steps). kNone: nothing, and the block
// launches its dependents first thing. The others launch them once the
// block's last step's loads are issued (for_each_step), so that the next
// kernel's blocks, and their prefetches, come as this kernel's last rows
// are read.
enum class RowPrefetch {
  kNone,
  kFirstRow,           // the block's row (prefetch_first_row): kLayerNormPrefetch
  // The block's first step's rows near x's start (prefetch_first_step), and
  // in the first block the op's weight and bias: row_configs.h's
  // row_config_prefetches_bounded.
  kFirstStepsBounded,
};

// Bytes at the start of x whose rows RowPrefetch::kFirstStepsBounded has
// L2 prefetch: the first blocks' alone. Every block prefetching its first
// step ran the short f32 rows 3-5% slower (kLayerNormPrefetch's comment);
// H200, diag probe (timed as cuda_kernel_bench), f32 65536 x 128, two runs
// each: within 8 MiB as within 4, within 2 MiB 0.5-1.2 points less. The
// 16-bit blocks of 4096 x 4096 (diag probe, a process of its own, H200):
// within 4 MiB softmax 79.7 -> 80.5-80.7%, rms_norm 80.7-81.0 -> 81.9-82.2,
// layer_norm f16 75.5 -> 75.0-75.1, bf16 74.1 -> 74.4-74.5; within 1 or 8
// MiB, or launching late with no prefetch, slower than without (the
// plugin's figures: row_configs.h's row_config_prefetches_bounded).
constexpr long long kPrefetchedBytes = 4LL << 20;

// Has L2 fetch the rows of the block's first step (begin_steps found some)
// by the block's first thread, where they start within x's first
// kPrefetchedBytes.
template <class Slice, class T>
__device__ __forceinline__ void prefetch_first_step(const Slice& s, const T* x, long long rows, long long n) {
  const long long first = s.first_step();
  if (threadIdx.x != 0 || first * n * (long long)sizeof(T) >= kPrefetchedBytes) return;
  const long long count = rows - first < s.rows_per_step() ? rows - first : s.rows_per_step();
  prefetch_to_l2(x + first * n, unsigned(count * n * sizeof(T)));
}

// Has L2 fetch the op's per-column parameters (weight, bias: n elements of
// T each) by the first block's first thread.
template <class T, class... Params>
__device__ __forceinline__ void prefetch_columns(long long n, const Params*... params) {
  if (blockIdx.x == 0 && threadIdx.x == 0) (prefetch_to_l2(params, unsigned(n * sizeof(T))), ...);
}

// A kernel whose blocks prefetch as P says calls this first thing: where P
// is kNone it launches its dependents now, else for_each_step<P> does.
template <RowPrefetch P>
__device__ __forceinline__ void launch_dependents_first() {
  if constexpr (P == RowPrefetch::kNone) launch_dependents();
}

// begin_steps for a kernel whose blocks prefetch as P says (rows of n),
// where kFirstStepsBounded also the op's per-column parameters (weight,
// bias: n each), by the first block.
template <RowPrefetch P, class Slice, class T, class... Params>
__device__ __forceinline__ bool start_steps(Slice& s, const T* x, long long rows, long long n,
                                            const Params*... params) {
  return begin_steps(s, x, rows, [&] {
    if constexpr (P == RowPrefetch::kFirstRow) prefetch_first_row(x, rows, n);
    if constexpr (P == RowPrefetch::kFirstStepsBounded) {
      prefetch_first_step(s, x, rows, n);
      prefetch_columns<T>(n, params...);
    }
  });
}

// The grid-stride loop of a register configuration, after begin_steps:
// body(v) once per step of slice s, v holding this thread's packs of its rows (packs outside them:
// fill). A pass of a body reads v through Held::get and may keep what it
// computed (Held::keep); where v is Packed, later passes compute it again.
// P other than kNone: the block launches its dependents once its last
// step's loads are issued, not at the kernel's start
// (launch_dependents_first).
template <RowPrefetch P, class Slice, class T, class Body>
__device__ __forceinline__ void for_each_step(Slice& s, const T* x, long long rows, float fill,
                                              Body body) {
  const auto take_step = [&](long long first) {
    typename Slice::Packs v;
    s.load_rows(x, fill, v);
    if constexpr (P != RowPrefetch::kNone) {
      if (first + s.step() >= rows) launch_dependents();
    }
    body(v);
  };
  if constexpr (Slice::kAnchored) {  // begin_steps moved s to the first step
    for (long long first = s.first_step();;) {
      take_step(first);
      first += s.step();
      if (first >= rows) break;
      s.at(first, rows, x);
    }
  } else {
    for (long long first = s.first_step(); first < rows; first += s.step()) {
      s.at(first, rows, x);
      take_step(first);
    }
  }
}

// Whether a configuration of V packs a thread over T (Packed or not) keeps
// its op's Params per-column parameters (row_configs.h's row_keeps_columns).
template <int Params, class T, int V, bool Packed>
constexpr bool kKeepsColumns = row_keeps_columns(Params, V, int(sizeof(T)), Packed);

// A per-column parameter of a row op (weight, bias) at this thread's V packs
// of a row. A thread's columns are the same in every step of the grid-stride
// loop, so where kKeepsColumns allows the registers (Kept), they are loaded
// once, before it (in flight with the first row's loads, not after its
// reductions), and held in their own type (4 registers a pack); otherwise
// each use loads them again (from L1 or L2). For those not kept, H200,
// cuda_kernel_bench: prefetching them into L1 at the start
// (prefetch.global.L1) ran 15-108% slower (layer_norm 16-bit 524288 x 128
// twice as long), and in 16-bit layer_norm's b4 alone (a __noinline__
// function: inline, or after the row's loads, it took 70-101 registers)
// 4096 x 4096 21-24% and 32768 x 2048 84-86% slower, then slower than
// ATen; copying layer_norm's b4 weight and bias into dynamic
// shared memory at the start (cp.async, a thread's packs at places of its
// own; no registers held) ran 16-bit 4096 x 4096 2.5-4.4% and 32768 x 2048
// 3.5-3.8% slower, f32 16384 x 8192 7.3% (64 KiB a block), f32 4096 x 4096
// 1.1% faster.
template <class T, int V, bool Kept, bool Unguarded = false>
struct ColumnValues {
  using Pack = Held<T, sizeof(T) == 2>;
  const T* values;
  const int n;  // the row's length
  Pack kept[Kept ? V : 1];

  template <class Slice>
  __device__ ColumnValues(const Slice& s, const T* values_) : values(values_), n(s.n) {
    if constexpr (Kept) {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        kept[k].template load_if<Access::kCached>(s.column(k) < s.n, values + s.column(k), 0.f);
      }
    }
  }
  // The parameter at pack k of this thread, at `column`, as floats.
  // Unguarded, a column past the row reads column 0, so that the caller
  // needs no branch around it (store_rows), through the read-only path,
  // which no store of the kernel can change: no store need come before a
  // pack's loads. (H200, SASS: guarded, layer_norm 16-bit b4 loaded each
  // pack's weight and bias after the previous pack's store, one L1 or L2
  // round trip a pack; unguarded, at its 64 registers, ptxas still issues
  // packs 1-3's after pack 0's store and pack 3's after pack 2's.) __ldg is
  // an invariant load, which the compiler may move above the wait for the
  // previous kernel (diag: issued before layer_norm_rows' loop, it did);
  // here it follows the block's reductions, and the SASS has it after.
  __device__ void get(int k, int column, float (&out)[Pack::E]) const {
    if constexpr (Kept) {
      kept[k].get(out);
    } else if constexpr (Unguarded) {
      unpack<T>(__ldg(reinterpret_cast<const uint4*>(values + (column < n ? column : 0))), out);
    } else {
      load(values + column, out);
    }
  }
};

// x / n for a statistic of a row op whose rows are shared by LANES lanes (0:
// a block). Groups divide as __fdividef (2 ulp in a few instructions, where
// '/' spends a dozen with its check for the slow path): their kernels are
// bound by instruction issue as much as by memory (ncu, H200, layer_norm bf16
// g16r4 at 524288 x 128: 69% of issue slots busy, 74% of DRAM bandwidth; 64%
// and 8.7% fewer instructions so). cuda_kernel_bench, with load_pack_if,
// against '/' and guarded loads, two calls: layer_norm's 16-bit rows of 128
// 1.2-3.6% faster (bf16 524288 x 128 78.5-80.1% -> 80.2-81.8% of peak), f32
// 0.0-1.3% slower. Blocks keep '/': b8h, at its bound of 64 registers,
// spilled so.
template <int LANES>
__device__ __forceinline__ float divide_statistic(float x, float n) {
  if constexpr (LANES > 0) return __fdividef(x, n);
  return x / n;
}

// The RowPrefetch of a row kernel of V packs a thread in LANES lanes over T
// (layer_norm's: kLayerNormPrefetch): kFirstStepsBounded where
// row_configs.h's row_config_prefetches_bounded says so. For the f32 rows of
// 17-32 packs (65-128 elements) of the short-row lists, H200,
// cuda_kernel_bench, five runs in two calls against three of the kernels
// before on a like GPU (streaming reference 80.5-81.2% of peak at 65536 x
// 128): 65536 x 128 rms_norm
// 80.4-80.6 -> 81.9-82.0%, softmax 79.9-80.0 -> 80.8-81.0, layer_norm
// (SHORT_LAYER_NORM_F32's w1r2 too) 78.4-78.6 -> 79.9-80.3; 524288 x 128
// rms_norm 126.9-127.0 -> 127.7-127.8 us, softmax 127.5-127.6 -> 128.0-128.3
// (ATen 129.2-129.4), layer_norm 129.1-129.2 -> 127.8-128.1. The diag
// probe (timed alike, a process of its own) measured twice the gain at
// 65536 x 128 (rms_norm w1r1 80.9 -> 82.1-82.2%, softmax 80.3-80.4 ->
// 82.7-82.9, layer_norm 79.3 (w1 in 256 threads) -> 82.6), and as little as
// the bench where the context's per-thread stack had been raised above its
// 1 KiB default (cudaDeviceSetLimit(cudaLimitStackSize) to 2 or 16 KiB, or
// torch launching a kernel first, as in the bench; setting the limit back
// to 1 KiB after that did not help): layer_norm and softmax 79.6-81.1%, the
// streaming reference unchanged. The same prefetch with the dependents launched first
// thing ran these configurations 78.5-81.4% in the probe; the weight and
// bias prefetched too 0.2-0.4 points faster than without, with a weight and
// bias of each input set's own. Those figures streaming; the lists read
// and write cached since (row_configs.h's row_config_streams says why).
template <class T, int V, int LANES>
constexpr RowPrefetch kRowPrefetch = row_config_prefetches_bounded(int(sizeof(T)), LANES, V)
                                         ? RowPrefetch::kFirstStepsBounded
                                         : RowPrefetch::kNone;

template <class T, int V, int LANES, int R, Access A, bool Packed>
__device__ void rms_norm_rows(const T* __restrict__ x, const T* __restrict__ weight,
                              T* __restrict__ y, long long rows, long long n, float eps) {
  constexpr int E = kPack<T>;
  constexpr RowPrefetch P = kRowPrefetch<T, V, LANES>;
  launch_dependents_first<P>();
  RowSlice<T, V, LANES, R, A, Packed> s(n);
  if (!start_steps<P>(s, x, rows, n, weight)) return;
  const ColumnValues<T, V, kKeepsColumns<1, T, V, Packed>> w_at(s, weight);
  for_each_step<P>(s, x, rows, 0.f, [&](auto& v) {
    float scale[R];
    thread_reduce(v, scale, Sum{}, [](float a) { return a * a; });
    row_reduce<LANES>(scale, Sum{});
#pragma unroll
    for (int r = 0; r < R; ++r) scale[r] = rsqrtf(divide_statistic<LANES>(scale[r], float(n)) + eps);
    store_rows<A>(s, y, v, [&](int r, int k, int column, float (&pack)[E]) {
      float w[E];
      w_at.get(k, column, w);
#pragma unroll
      for (int e = 0; e < E; ++e) pack[e] = pack[e] * scale[r] * w[e];
    });
  });
}

// The RowPrefetch of layer_norm's kernel of V packs a thread in LANES lanes,
// R rows at a time, over T: its f32 blocks of a row each and up to
// kF32NormPacks packs a thread (b4) prefetch their row (kFirstRow), the
// others as kRowPrefetch. H200, cuda_kernel_bench, three runs
// each against overlap_launch in each of three calls: 4096 x 4096
// 79.1-79.6% -> 80.3-80.7% of peak, 16384 x 8192 85.4-86.1% -> 86.4-86.9%,
// 32768 x 2048 84.9-85.6% -> 85.5-86.2%. Not the others: 16-bit rms_norm,
// layer_norm and softmax 4096 x 4096 ran 5-8% slower so (4-6% prefetching in
// a first wave's blocks alone), rms_norm f32 4096 x 4096 and softmax f32
// 4096 x 4096 and 4096 x 32000 0.3-2.2%; softmax's and layer_norm's f32
// groups so, each block prefetching its first step's rows (three runs
// against the kernels as they are, on like GPUs): softmax 65536 x 128 17.4
// -> 18.2-18.3 us and 524288 x 128 127.5 -> 131.1, layer_norm 65536 x 128
// 17.7-17.8 -> 18.3-18.4 (524288 x 128 129.1 -> 128.1-128.3). The b4
// blocks at 4096 x 4096 launching late without the prefetch ran 79.2%;
// launching first, then prefetching in a first wave's blocks alone,
// 79.6-79.7%.
template <class T, int V, int LANES, int R>
constexpr RowPrefetch kLayerNormPrefetch =
    std::is_same_v<T, float> && LANES == 0 && R == 1 && V <= kF32NormPacks ? RowPrefetch::kFirstRow
                                                                            : kRowPrefetch<T, V, LANES>;

// Two passes over the registers: the variance of centred values does not
// cancel catastrophically, and costs no second read of memory. A group, and
// a 16-bit block, takes the row's mean, then the squares about it; an f32
// block merges each thread's Moments (two block sums ran f32 b4 4096 x 4096
// 2.6% slower; 16-bit 4096 x 4096, with its first step set up before the
// wait, f16 as fast, 74.8-75.1% of peak, bf16 73.3-73.4% -> 73.6-74.0%).
// With Moments' merge, setting up the first step before the wait
// (RowSlice::kAnchored) ran 16-bit b4 1 point slower (diag, same process):
// ptxas moved the instructions it took from before the loads to after them.
// The planner gives 16-bit rows that b4 holds in kPreferredRowThreads to
// "sh" instead (shared_row_layer_norm.cuh), for what follows.
// Where 16-bit b4 loses to rms_norm and softmax at 4096 x 4096 (0.90-0.93
// of the streaming reference against 0.97): in its weight and bias loads
// after the reductions, though they hit L1 (ncu: 2% more L2 sectors read
// than without them). Diag, H200, same process, f16 / bf16: this kernel
// 75.5 / 74.1% of the peak; without those loads (outputs wrong) 79.3-79.4 /
// 79.2-79.3%; rms_norm's b4 loading its weight there instead of keeping it
// 80.9 -> 78.0%; reading them from a 2 KiB shared array instead (outputs
// wrong, LDS.128) 78.4 / 78.2% where this one ran 75.2 / 73.8. ncu's stall
// samples find about 15% of this kernel's warps waiting on them, 3% in a
// plain kernel that issues them all before its first store (77.5%).
// Measured and not kept (this kernel 75.5 / 74.1% unless said): issuing
// them all before the first store (the row held as floats: 96 registers, 5
// blocks per SM, 67.7 / 65.7%; held packed: 75.7 / 73.5%); before the
// second sum, packed (74.5 / 72.3% where this one ran 74.5 / 73.1); an L1
// eviction hint or .ca loads (75.2 / 74.1%); the block's own copy in shared
// memory, filled by each thread before its first loads and read as LDS.128
// (16 KiB a block: 74.1-74.9 / 73.2-74.0% where this one ran 75.1-75.7 /
// 73.8-74.2, and on a slower GPU 73.5 / 73.0% where it ran 73.5 / 72.3; its
// fill's loads marked L1::evict_last, no change; filled once the first
// loads are issued, 58.5 / 57.6%; one to three of the four packs so, read
// as LDS.64, f16 72.9-74.3% where this one ran 75.1). The whole copy
// brought by the bulk-copy engine (one thread, two copies, an mbarrier
// waited on before the output): 74.1 / 72.8% where this one ran 75.2 / 73.9
// (every block reads 16 KiB from L2, past L1). The shared memory itself is
// not what costs: the 2 KiB array above with 14 KiB more beside it ran 78.5
// / 78.7% against 78.8 / 78.7%; filling it is. Also: kept, the row packed
// (72 registers, 7 blocks per SM: 75.4 / 72.3% where this one ran 74.6 /
// 73.0); the next row's loads issued before this row's sums (74.5 / 72.0%);
// L2 prefetch of the next row (74.8 / 73.2% where this one ran 75.1 /
// 73.8); a grid of 8 blocks per SM walking rows, with the 2 KiB array or
// the whole copy (72.4-72.9% and 70.4-70.6%, where a block a row ran
// 78.7-78.8% and 74.0-74.9%). A plain f16 kernel in blocks of 4 or 8 rows
// sharing one copy in shared memory (named barriers a row) ran 68.0-72.3%
// where its blocks of a row ran 77.2%.
// Earlier: ncu (at its 1.4 GHz clocks) counts 10.0M warp instructions to
// softmax's 7.7M and rms_norm's 5.8M, but an instruction an element fewer
// in the output ((x - mean) scale as x scale + shift) left its fraction of
// the reference unchanged; reading n at run time took the plain kernel to
// 74.2%; one step instead of the loop: no change; the statistics in one
// pass, as sums of x - x[0] and their squares: 2 points slower. Groups so
// (one reduction of both sums about the row's first element, from the
// group's first lane; H200, cuda_kernel_bench, three runs each against the
// kernels as they are, on like GPUs) ran no faster: f32 65536 x 128
// 78.3-78.5% of peak against 78.4-78.6%, 524288 x 128 as fast; 16-bit
// 65536 x 128 1-4% slower, bf16 524288 x 128 2%.
template <class T, int V, int LANES, int R, Access A, bool Packed>
__device__ void layer_norm_rows(const T* __restrict__ x, const T* __restrict__ weight,
                                const T* __restrict__ bias, T* __restrict__ y, long long rows,
                                long long n, float eps) {
  constexpr int E = kPack<T>;
  constexpr RowPrefetch P = kLayerNormPrefetch<T, V, LANES, R>;
  // Groups and 16-bit blocks reduce the row's sum, then its squares about
  // the mean; f32 blocks merge each thread's Moments.
  constexpr bool kRowSums = LANES > 0 || sizeof(T) == 2;
  launch_dependents_first<P>();
  RowSlice<T, V, LANES, R, A, Packed> s(n);
  if (!start_steps<P>(s, x, rows, n, weight, bias)) return;
  // 16-bit blocks of up to 4 packs a thread (whose weight and bias are not
  // kept) load them unguarded (ColumnValues): H200, cuda_kernel_bench, two
  // runs each against guarded in one call, 4096 x 4096 and 32768 x 2048
  // 0.5-1.1% faster (f16 4096 x 4096 18.8 -> 18.6 us); f32 32768 x 2048
  // 0.5% slower, so f32 keeps the guard.
  constexpr bool kKept = kKeepsColumns<2, T, V, Packed>;
  constexpr bool kUnguarded = sizeof(T) == 2 && LANES == 0 && V <= 4 && !kKept;
  const ColumnValues<T, V, kKept, kUnguarded> w_at(s, weight), b_at(s, bias);
  for_each_step<P>(s, x, rows, 0.f, [&](auto& v) {
    float mean[R];
    thread_reduce(v, mean, Sum{}, [](float a) { return a; });
    if constexpr (kRowSums) {
      row_reduce<LANES>(mean, Sum{});
#pragma unroll
      for (int r = 0; r < R; ++r) mean[r] = divide_statistic<LANES>(mean[r], float(n));
    } else {  // the mean of this thread's part of the row
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const float held = s.held(r);
        mean[r] = held > 0.f ? mean[r] / held : 0.f;
      }
    }
    float scale[R] = {};
    transform_reduce(s, v, scale, [&](int r, bool in_row, float& a, float& squares) {
      if (in_row) squares += (a - mean[r]) * (a - mean[r]);
    });
    if constexpr (kRowSums) {
      row_reduce<LANES>(scale, Sum{});
    } else {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const Moments row = block_merge(Moments{s.held(r), mean[r], scale[r]});
        mean[r] = row.mean;
        scale[r] = row.deviations;
      }
    }
#pragma unroll
    for (int r = 0; r < R; ++r) scale[r] = rsqrtf(divide_statistic<LANES>(scale[r], float(n)) + eps);
    store_rows<A, kUnguarded>(s, y, v, [&](int r, int k, int column, float (&pack)[E]) {
      float w[E], b[E];
      w_at.get(k, column, w);
      b_at.get(k, column, b);
#pragma unroll
      for (int e = 0; e < E; ++e) pack[e] = (pack[e] - mean[r]) * scale[r] * w[e] + b[e];
    });
  });
}

// A group takes the row's max, then the sum of exp(x - max); a block merges
// each thread's (max, sum) and rescales the thread's exps to the row's max.
template <class T, int V, int LANES, int R, Access A, bool Packed>
__device__ void softmax_rows(const T* __restrict__ x, T* __restrict__ y, long long rows,
                             long long n) {
  constexpr int E = kPack<T>;
  constexpr RowPrefetch P = kRowPrefetch<T, V, LANES>;
  launch_dependents_first<P>();
  RowSlice<T, V, LANES, R, A, Packed> s(n);
  if (!start_steps<P>(s, x, rows, n)) return;
  for_each_step<P>(s, x, rows, -INFINITY, [&](auto& v) {
    float top[R], sum[R] = {};
    thread_reduce(v, top, Max{}, [](float a) { return a; });
    if constexpr (LANES > 0) row_reduce<LANES>(top, Max{});
    transform_reduce(s, v, sum, [&](int r, bool in_row, float& a, float& total) {
      // Packed fill (-inf) gives exp 0; a thread holding none of the row adds 0.
      a = (in_row || Packed) && top[r] != -INFINITY ? exp_flushed(a - top[r]) : 0.f;
      total += a;
    });
    float scale[R];
    if constexpr (LANES > 0) {
      row_reduce<LANES>(sum, Sum{});
#pragma unroll
      for (int r = 0; r < R; ++r) scale[r] = 1.f / sum[r];
    } else {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const ExpSum row = block_merge(ExpSum{top[r], sum[r]});
        // A row of -inf alone stays NaN, as ATen's: exp(-inf - -inf) / 0.
        const bool empty = top[r] == -INFINITY && row.top != -INFINITY;
        scale[r] = empty ? 0.f : exp_flushed(top[r] - row.top) / row.sum;
      }
    }
    store_rows<A>(s, y, v, [&](int r, int, int, float (&pack)[E]) {
#pragma unroll
      for (int e = 0; e < E; ++e) pack[e] = (Packed ? exp_flushed(pack[e] - top[r]) : pack[e]) * scale[r];
    });
  });
}

// --- loop kernels: a block per row, one read per pass -----------------------

// Calls f(column, values) for this thread's E-element pieces of a row of n.
template <int E, class F>
__device__ __forceinline__ void for_row(long long n, F&& f) {
  for (long long c = (long long)threadIdx.x * E; c < n; c += (long long)blockDim.x * E) f(c);
}

// The last pass of the loop kernels: the output at `out` of the row of n at `in`.
template <class T, int E>
__device__ __forceinline__ void layer_norm_write(const T* in,
                                                 const T* weight,
                                                 const T* bias, T* out,
                                                 long long n, float mean, float scale) {
  for_row<E>(n, [&](long long c) {
    float v[E], w[E], b[E];
    load(in + c, v);
    load(weight + c, w);
    load(bias + c, b);
#pragma unroll
    for (int e = 0; e < E; ++e) v[e] = (v[e] - mean) * scale * w[e] + b[e];
    store(out + c, v);
  });
}

template <class T, int E>
__device__ __forceinline__ void softmax_write(const T* in, T* out,
                                              long long n, float top, float inverse) {
  for_row<E>(n, [&](long long c) {
    float v[E];
    load(in + c, v);
#pragma unroll
    for (int e = 0; e < E; ++e) v[e] = exp_flushed(v[e] - top) * inverse;
    store(out + c, v);
  });
}

template <class T, int E>
__device__ void rms_norm_loop(const T* __restrict__ x, const T* __restrict__ weight,
                              T* __restrict__ y, long long rows, long long n, float eps) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* in = x + row * n;
    float squares = 0.f;
    for_row<E>(n, [&](long long c) {
      float v[E];
      load(in + c, v);
#pragma unroll
      for (int e = 0; e < E; ++e) squares += v[e] * v[e];
    });
    const float scale = rsqrtf(block_reduce(squares, Sum{}) / float(n) + eps);
    for_row<E>(n, [&](long long c) {
      float v[E], w[E];
      load(in + c, v);
      load(weight + c, w);
#pragma unroll
      for (int e = 0; e < E; ++e) v[e] = v[e] * scale * w[e];
      store(y + row * n + c, v);
    });
  }
}

template <class T, int E>
__device__ void layer_norm_loop(const T* __restrict__ x, const T* __restrict__ weight,
                                const T* __restrict__ bias, T* __restrict__ y, long long rows,
                                long long n, float eps) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* in = x + row * n;
    float sum = 0.f;
    for_row<E>(n, [&](long long c) {
      float v[E];
      load(in + c, v);
#pragma unroll
      for (int e = 0; e < E; ++e) sum += v[e];
    });
    const float mean = block_reduce(sum, Sum{}) / float(n);
    float squares = 0.f;
    for_row<E>(n, [&](long long c) {
      float v[E];
      load(in + c, v);
#pragma unroll
      for (int e = 0; e < E; ++e) squares += (v[e] - mean) * (v[e] - mean);
    });
    const float scale = rsqrtf(block_reduce(squares, Sum{}) / float(n) + eps);
    layer_norm_write<T, E>(in, weight, bias, y + row * n, n, mean, scale);
  }
}

template <class T, int E>
__device__ void softmax_loop(const T* __restrict__ x, T* __restrict__ y, long long rows,
                             long long n) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* in = x + row * n;
    float top = -INFINITY;
    for_row<E>(n, [&](long long c) {
      float v[E];
      load(in + c, v);
#pragma unroll
      for (int e = 0; e < E; ++e) top = fmaxf(top, v[e]);
    });
    top = block_reduce(top, Max{});
    float sum = 0.f;
    for_row<E>(n, [&](long long c) {
      float v[E];
      load(in + c, v);
#pragma unroll
      for (int e = 0; e < E; ++e) sum += exp_flushed(v[e] - top);
    });
    const float inverse = 1.f / block_reduce(sum, Sum{});
    softmax_write<T, E>(in, y + row * n, n, top, inverse);
  }
}

// --- two-pass kernels: a block per row, no row held, two reads of it -------
// The second read of a row mostly hits L2. rms_norm_loop already reads twice.

// Pass 1: a running max and the sum of exp(x - max), rescaled when the max
// grows (online softmax); the threads' pairs meet at the row's max. Pass 2
// writes.
template <class T, int E>
__device__ void softmax_two_pass(const T* __restrict__ x, T* __restrict__ y, long long rows,
                                 long long n) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* in = x + row * n;
    ExpSum mine = ExpSum::identity();
    for_row<E>(n, [&](long long c) {
      float v[E];
      load(in + c, v);
      add_to(mine, v);
    });
    const float row_top = block_reduce(mine.top, Max{});
    const float scaled = mine.top == -INFINITY ? 0.f : mine.sum * exp_flushed(mine.top - row_top);
    const float inverse = 1.f / block_reduce(scaled, Sum{});
    softmax_write<T, E>(in, y + row * n, n, row_top, inverse);
  }
}

// Pass 1: the sums of x - x[0] and of its squares. Shifted by the row's first
// element, the variance (squares / n - mean^2) cancels only as far as the row
// lies away from it, not from 0. Pass 2 writes.
template <class T, int E>
__device__ void layer_norm_two_pass(const T* __restrict__ x, const T* __restrict__ weight,
                                    const T* __restrict__ bias, T* __restrict__ y, long long rows,
                                    long long n, float eps) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* in = x + row * n;
    const float shift = to_float(in[0]);
    float sum = 0.f, squares = 0.f;
    for_row<E>(n, [&](long long c) {
      float v[E];
      load(in + c, v);
#pragma unroll
      for (int e = 0; e < E; ++e) {
        sum += v[e] - shift;
        squares += (v[e] - shift) * (v[e] - shift);
      }
    });
    const float shifted_mean = block_reduce(sum, Sum{}) / float(n);
    const float variance =
        fmaxf(block_reduce(squares, Sum{}) / float(n) - shifted_mean * shifted_mean, 0.f);
    const float mean = shift + shifted_mean, scale = rsqrtf(variance + eps);
    layer_norm_write<T, E>(in, weight, bias, y + row * n, n, mean, scale);
  }
}

// softmax over a dimension that is not the last: `rows` columns, column r
// walking its n elements at (r / inner) * n * inner + r % inner + k * inner.
// Neighbouring threads take neighbouring columns, so each step coalesces.
template <class T>
__device__ void softmax_columns(const T* __restrict__ x, T* __restrict__ y, long long rows,
                                long long n, long long inner) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += step) {
    const long long base = (r / inner) * n * inner + r % inner;
    float top = -INFINITY;
    for (long long k = 0; k < n; ++k) top = fmaxf(top, to_float(x[base + k * inner]));
    float sum = 0.f;
    for (long long k = 0; k < n; ++k) sum += exp_flushed(to_float(x[base + k * inner]) - top);
    const float inverse = 1.f / sum;
    for (long long k = 0; k < n; ++k) {
      y[base + k * inner] = from_float<T>(exp_flushed(to_float(x[base + k * inner]) - top) * inverse);
    }
  }
}

// erf(x) within 1.5e-7 (Abramowitz & Stegun 7.1.26): one reciprocal, one
// exp and five FMAs, where erff's branch-free pieces take about 25
// instructions (H200 SASS of geglu f16: 10 FSEL an element), which made
// geglu over 16-bit elements, twice as many per byte as f32, bound by
// instruction issue. Used where the output is 16-bit: its rounding (4.9e-4
// and 3.9e-3 relative) is far coarser than the approximation.
__device__ __forceinline__ float erf_approximated(float x) {
  const float ax = fabsf(x);
  float t;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(t) : "f"(fmaf(0.3275911f, ax, 1.f)));
  float poly = fmaf(1.061405429f, t, -1.453152027f);
  poly = fmaf(poly, t, 1.421413741f);
  poly = fmaf(poly, t, -0.284496736f);
  poly = fmaf(poly, t, 0.254829592f);
  poly *= t;
  float decay;  // e^(-x^2)
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(decay) : "f"(-ax * ax * 1.4426950408889634f));
  return copysignf(1.f - poly * decay, x);
}

// Exact (erf) GELU of a times b; T: the output's type (erf_approximated for 16-bit).
template <class T>
__device__ __forceinline__ float gelu_times(float a, float b) {
  const float x = a * 0.70710678118654752f;
  const float erf_x = sizeof(T) == 2 ? erf_approximated(x) : erff(x);
  return 0.5f * a * (1.f + erf_x) * b;
}

// Exact (erf) GELU of a times b, as torch.nn.functional.gelu(approximate='none').
// E-element pieces first (a, b and y 16-byte aligned when E > 1), each thread
// loading P of them before it computes any, then the tail of count % E
// elements one by one. The plugin's: P = kGegluPacks on a grid of a block
// per kElementwiseThreads x P pieces, cached access (row_configs.h says why);
// the bench's sweep times others.
template <class T, int E, int P = kGegluPacks, Access A = Access::kCached>
__device__ void geglu(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y,
                      long long count) {
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long pieces = count / E;
  for (long long i = first; i < pieces; i += step * P) {
    float va[P][E], vb[P][E];
#pragma unroll
    for (int u = 0; u < P; ++u) {
      const long long piece = i + u * step;
      if (piece >= pieces) continue;
      load<A>(a + piece * E, va[u]);
      load<A>(b + piece * E, vb[u]);
    }
#pragma unroll
    for (int u = 0; u < P; ++u) {
      const long long piece = i + u * step;
      if (piece >= pieces) continue;
#pragma unroll
      for (int e = 0; e < E; ++e) va[u][e] = gelu_times<T>(va[u][e], vb[u][e]);
      store<A>(y + piece * E, va[u]);
    }
  }
  for (long long i = pieces * E + first; i < count; i += step) {
    float va[1] = {gelu_times<T>(to_float(a[i]), to_float(b[i]))};
    store(y + i, va);
  }
}

}  // namespace omnirt::cuda::kernels

// C names, looked up by cuda_kernels.cpp (and by name by the kernel bench's
// sweep). Within a dtype every kernel of an op takes the same arguments, so
// the planner can pick any of them (softmax's "sh", shared_row_softmax.cuh,
// also takes its row's bytes of dynamic shared memory). The loop, column
// and geglu kernels start with overlap_launch; the register configurations'
// row functions launch their dependents first (those that prefetch later:
// RowPrefetch) and wait in begin_steps.
// A: the Access of x and y; Packed: whether the row is held in its 16-bit
// form (Held), a literal true or false: packed kernels are bounded to two
// blocks per SM (64 registers a thread), the point of packing.
#define OMNIRT_ROW_BOUNDS_false(LANES) __launch_bounds__(LANES > 0 ? kGroupThreads : kMaxRowThreads)
#define OMNIRT_ROW_BOUNDS_true(LANES) \
  __launch_bounds__(LANES > 0 ? kGroupThreads : kMaxRowThreads, 2)
#define OMNIRT_ROW_KERNELS_BOUNDED(dt, T, cfg, LANES, V, R, A, Packed, BOUNDS)                     \
  extern "C" __global__ void BOUNDS omnirt_rms_norm_##dt##_##cfg(                                  \
      const T* x, const T* w, T* y, long long rows, long long n, float eps) {                      \
    rms_norm_rows<T, V, LANES, R, A, Packed>(x, w, y, rows, n, eps);                               \
  }                                                                                                \
  extern "C" __global__ void BOUNDS omnirt_layer_norm_##dt##_##cfg(                                \
      const T* x, const T* w, const T* b, T* y, long long rows, long long n, float eps) {          \
    layer_norm_rows<T, V, LANES, R, A, Packed>(x, w, b, y, rows, n, eps);                          \
  }                                                                                                \
  extern "C" __global__ void BOUNDS omnirt_softmax_##dt##_##cfg(                                   \
      const T* x, T* y, long long rows, long long n, long long) {                                  \
    softmax_rows<T, V, LANES, R, A, Packed>(x, y, rows, n);                                        \
  }

#define OMNIRT_ROW_KERNELS_HELD(dt, T, cfg, LANES, V, R, A, Packed) \
  OMNIRT_ROW_KERNELS_BOUNDED(dt, T, cfg, LANES, V, R, A, Packed, OMNIRT_ROW_BOUNDS_##Packed(LANES))

#define OMNIRT_LOOP_KERNELS(dt, T, cfg, E)                                                         \
  extern "C" __global__ void __launch_bounds__(kLoopThreads) omnirt_rms_norm_##dt##_##cfg(         \
      const T* x, const T* w, T* y, long long rows, long long n, float eps) {                      \
    overlap_launch();                                                                              \
    rms_norm_loop<T, E>(x, w, y, rows, n, eps);                                                    \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(kLoopThreads) omnirt_layer_norm_##dt##_##cfg(       \
      const T* x, const T* w, const T* b, T* y, long long rows, long long n, float eps) {          \
    overlap_launch();                                                                              \
    layer_norm_loop<T, E>(x, w, b, y, rows, n, eps);                                               \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(kLoopThreads) omnirt_softmax_##dt##_##cfg(          \
      const T* x, T* y, long long rows, long long n, long long) {                                  \
    overlap_launch();                                                                              \
    softmax_loop<T, E>(x, y, rows, n);                                                             \
  }

// Two reads of each row, none held (rms_norm's is its loop kernel); 16-byte packs.
#define OMNIRT_TWO_PASS_KERNELS(dt, T, cfg)                                                        \
  extern "C" __global__ void __launch_bounds__(kLoopThreads) omnirt_rms_norm_##dt##_##cfg(         \
      const T* x, const T* w, T* y, long long rows, long long n, float eps) {                      \
    overlap_launch();                                                                              \
    rms_norm_loop<T, kPack<T>>(x, w, y, rows, n, eps);                                             \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(kLoopThreads) omnirt_layer_norm_##dt##_##cfg(       \
      const T* x, const T* w, const T* b, T* y, long long rows, long long n, float eps) {          \
    overlap_launch();                                                                              \
    layer_norm_two_pass<T, kPack<T>>(x, w, b, y, rows, n, eps);                                    \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(kLoopThreads) omnirt_softmax_##dt##_##cfg(          \
      const T* x, T* y, long long rows, long long n, long long) {                                  \
    overlap_launch();                                                                              \
    softmax_two_pass<T, kPack<T>>(x, y, rows, n);                                                  \
  }

#define OMNIRT_DTYPE_KERNELS(dt, T)                                                                \
  OMNIRT_LOOP_KERNELS(dt, T, lv, kPack<T>)                                                         \
  OMNIRT_LOOP_KERNELS(dt, T, ls, 1)                                                                \
  extern "C" __global__ void __launch_bounds__(kLoopThreads)                                       \
      omnirt_softmax_##dt##_cols(const T* x, T* y, long long rows, long long n, long long inner) { \
    overlap_launch();                                                                              \
    softmax_columns<T>(x, y, rows, n, inner);                                                      \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(kElementwiseThreads)                                \
      omnirt_geglu_##dt##_v(const T* a, const T* b, T* y, long long count) {                       \
    overlap_launch();                                                                              \
    geglu<T, kPack<T>>(a, b, y, count);                                                            \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(kElementwiseThreads)                                \
      omnirt_geglu_##dt##_s(const T* a, const T* b, T* y, long long count) {                       \
    overlap_launch();                                                                              \
    geglu<T, 1>(a, b, y, count);                                                                   \
  }

// The plugin's kernels of each list of row_configs.h, by the list's name:
// OMNIRT_ROW_CONFIG_LISTS(OMNIRT_ROW_CONFIG_KERNELS) instantiates them all.
#define OMNIRT_ROW_CONFIG_KERNELS(list, cfg, LANES, V, R) OMNIRT_ROW_CONFIG_KERNELS_##list(cfg, LANES, V, R)

// A list's kernels in one dtype, read and written as their configuration's
// Access (kConfigAccess).
#define OMNIRT_ROW_LIST_KERNELS(list, dt, T, cfg, LANES, V, R, Packed) \
  OMNIRT_ROW_KERNELS_HELD(dt, T, cfg, LANES, V, R, (kConfigAccess<RowConfigList::list, T, LANES, V>), Packed)

#define OMNIRT_ROW_CONFIG_KERNELS_EVERY(cfg, LANES, V, R)              \
  OMNIRT_ROW_LIST_KERNELS(EVERY, f32, float, cfg, LANES, V, R, false)  \
  OMNIRT_ROW_LIST_KERNELS(EVERY, f16, __half, cfg, LANES, V, R, false) \
  OMNIRT_ROW_LIST_KERNELS(EVERY, bf16, __nv_bfloat16, cfg, LANES, V, R, false)

#define OMNIRT_ROW_CONFIG_KERNELS_F32(cfg, LANES, V, R) \
  OMNIRT_ROW_LIST_KERNELS(F32, f32, float, cfg, LANES, V, R, false)

#define OMNIRT_ROW_CONFIG_KERNELS_SHORT_F32(cfg, LANES, V, R) \
  OMNIRT_ROW_LIST_KERNELS(SHORT_F32, f32, float, cfg, LANES, V, R, false)

#define OMNIRT_ROW_CONFIG_KERNELS_SHORT_SOFTMAX_F32(cfg, LANES, V, R) \
  OMNIRT_ROW_LIST_KERNELS(SHORT_SOFTMAX_F32, f32, float, cfg, LANES, V, R, false)

#define OMNIRT_ROW_CONFIG_KERNELS_SHORT_LAYER_NORM_F32(cfg, LANES, V, R) \
  OMNIRT_ROW_LIST_KERNELS(SHORT_LAYER_NORM_F32, f32, float, cfg, LANES, V, R, false)

// The wide configurations: up to kWideRowThreads (row_configs.h).
#define OMNIRT_WIDE_ROW_BOUNDS __launch_bounds__(kWideRowThreads)
#define OMNIRT_ROW_CONFIG_KERNELS_WIDE_F32(cfg, LANES, V, R)                                   \
  OMNIRT_ROW_KERNELS_BOUNDED(f32, float, cfg, LANES, V, R,                                     \
                             (kConfigAccess<RowConfigList::WIDE_F32, float, LANES, V>), false, \
                             OMNIRT_WIDE_ROW_BOUNDS)

#define OMNIRT_ROW_CONFIG_KERNELS_LAYER_NORM_16(cfg, LANES, V, R)              \
  OMNIRT_ROW_LIST_KERNELS(LAYER_NORM_16, f16, __half, cfg, LANES, V, R, false) \
  OMNIRT_ROW_LIST_KERNELS(LAYER_NORM_16, bf16, __nv_bfloat16, cfg, LANES, V, R, false)

#define OMNIRT_ROW_CONFIG_KERNELS_RMS_NORM_16(cfg, LANES, V, R)              \
  OMNIRT_ROW_LIST_KERNELS(RMS_NORM_16, f16, __half, cfg, LANES, V, R, false) \
  OMNIRT_ROW_LIST_KERNELS(RMS_NORM_16, bf16, __nv_bfloat16, cfg, LANES, V, R, false)

#define OMNIRT_ROW_CONFIG_KERNELS_PACKED(cfg, LANES, V, R)             \
  OMNIRT_ROW_LIST_KERNELS(PACKED, f16, __half, cfg, LANES, V, R, true) \
  OMNIRT_ROW_LIST_KERNELS(PACKED, bf16, __nv_bfloat16, cfg, LANES, V, R, true)

#endif  // OMNIRT_PLUGINS_CUDA_KERNELS_ROW_KERNELS_CUH_
