// How the row kernels (rms_norm, layer_norm, and softmax over the last
// dimension) spread a row over threads. Shared by kernels/ops.cu, which
// instantiates one kernel per configuration, op and dtype, and by the
// plugin's launch planner (launch_plan.cpp), so that both name kernels alike.
// Plain C++: nvcc and the host compiler both include it.
#ifndef OMNIRT_PLUGINS_CUDA_KERNELS_ROW_CONFIGS_H_
#define OMNIRT_PLUGINS_CUDA_KERNELS_ROW_CONFIGS_H_

// X(list, suffix, lanes, packs, rows): `lanes` threads share a row (a group
// of neighbouring lanes of one warp, or the whole block when lanes is 0),
// each keeping `packs` 16-byte packs of the row in registers, so that the row
// is read from memory once. Pack k of lane l holds elements
// [(k * lanes + l) * E, +E) with E = 16 / sizeof(element): loads coalesce
// across the lanes. A group takes `rows` neighbouring rows at a time, their
// loads all in flight together: short rows give a thread little to load.
#define OMNIRT_ROW_CONFIGS_EVERY(X) \
  X(EVERY, g4, 4, 1, 4)             \
  X(EVERY, g8, 8, 1, 4)             \
  X(EVERY, g16, 16, 1, 2)           \
  X(EVERY, w1, 32, 1, 2)            \
  X(EVERY, w2, 32, 2, 2)            \
  X(EVERY, w4, 32, 4, 1)            \
  X(EVERY, b4, 0, 4, 1)

// Configurations of f32 alone: a thread keeps at most 64 floats of a row,
// which 16 packs of f32 are and 8 packs of f16/bf16 already are (16-bit rows
// that long run b8h or "sh" instead: 64 floats a thread ran them 13-25%
// slower on the H200).
#define OMNIRT_ROW_CONFIGS_F32(X) \
  X(F32, b8, 0, 8, 1)             \
  X(F32, b16, 0, 16, 1)

// rms_norm and layer_norm over f32 alone, for rows no configuration holds in
// kPreferredRowThreads: blocks of up to kWideRowThreads, half b16's packs a
// thread, so half as many dependent weight (and bias) loads per thread in the
// last pass, reading and writing the row as streaming (evict-first) accesses
// (row_kernels.cuh's Access). H200, 4096 x 32000, cuda_kernel_bench --sweep:
// rms_norm 85% of peak as k8 streaming, 83% cached, 77% as b16; layer_norm
// 79% streaming, 78% cached (on a grid that fills the SMs), 57% as b16.
// One SM holds one such block; copying the block's next row into shared
// memory (cp.async) while it computes this one, to keep loads in flight
// through its reductions, ran within 1% of it (and b8h 5-10% slower so).
#define OMNIRT_ROW_CONFIGS_WIDE_F32(X) X(WIDE_F32, k8, 0, 8, 1)

// rms_norm and layer_norm over f16/bf16 alone: the row held in its 16-bit
// form (row_kernels.cuh's Held: 4 registers a pack instead of 8) and bounded
// to two blocks per SM, so that one block's reductions overlap the other's
// loads (H200: rms_norm 4096 x 32000 68% of peak as b8, 83% as b8h;
// layer_norm 16384 x 8192 74% as b4, 82% as b8h). Not softmax: it would take
// each exp twice (217 us against b4's 152 at 16384 x 8192).
#define OMNIRT_ROW_CONFIGS_PACKED(X) X(PACKED, b8h, 0, 8, 1)

// layer_norm over f16/bf16 alone: rows of 9-16 packs (up to 128 elements)
// in groups of 16 lanes taking 4 rows at a time instead of g16's 2, so that
// more loads are in flight over its longer tail of dependent weight and bias
// loads (H200, --sweep, 524288 x 128: f16 68.7 us against g16's 71.4, bf16
// 70.4 against 73.1; rms_norm and softmax 0.7-0.9% slower so, not them).
#define OMNIRT_ROW_CONFIGS_LAYER_NORM_16(X) X(LAYER_NORM_16, g16r4, 16, 1, 4)

// rms_norm over f32 alone: rows of 17-32 packs (up to 128 elements) a warp
// each, one row at a time instead of w1's two (H200, --sweep, 524288 x 128:
// 128.0 us against w1's 130.8; 65536 x 128: 17.8 against 18.2; layer_norm
// 1.5% slower so, not it; softmax has its own below; all streaming then).
// Read and written cached, as the other two short-row lists, since their
// blocks prefetch (row_list_streams).
#define OMNIRT_ROW_CONFIGS_SHORT_F32(X) X(SHORT_F32, w1r1, 32, 1, 1)

// softmax over f32 alone: rows of 17-32 packs in groups of 16 lanes of two
// packs each, two rows at a time, in blocks of kShortSoftmaxThreads, read and
// written cached (row_list_streams). H200, --sweep, streaming, against w1r1
// in 256 threads (the plugin's before), three runs in one call: 65536 x 128 17.5
// us against 17.8 (79.6-79.7% of peak against 78.3%), in 128 threads 17.7,
// in 256 17.9; one run: 524288 x 128 128.2 against 129.3. cuda_kernel_bench,
// three runs: 17.4 us, 79.9-80.0% (w1r1 79.2-79.3% on a like H200, the
// streaming reference 81.0% on both), 524288 x 128 127.5-127.6 us against
// 128.1-128.2.
// rms_norm as fast at 65536 x 128 and 0.5% slower at 524288 x 128 so, not it.
// Its 34 registers allow 24 blocks per SM; bounded to 32 (all 32 blocks,
// spilling 8 bytes) it ran 18.2-18.3 us at 65536 x 128 and 130.6 at 524288
// x 128, where ATen ran 130.0-130.1 (three runs, on an H200 whose streaming
// reference ran 80.4-80.5%).
#define OMNIRT_ROW_CONFIGS_SHORT_SOFTMAX_F32(X) X(SHORT_SOFTMAX_F32, g16p2, 16, 2, 2)

// layer_norm over f32 alone: rows of 17-32 packs a warp each, two rows at a
// time (as EVERY's w1), in blocks of kShortLayerNormThreads, read and
// written cached (row_list_streams). Streaming: H200, diag probe (timed as
// cuda_kernel_bench, a process of its own), against w1 in 256 threads,
// cached (the plugin's before), in two calls: 65536 x 128 79.3-79.9% of
// peak against 78.7-79.3, and with both prefetching (row_kernels.cuh's
// row_config_prefetches_bounded) 82.6 against 79.9; 524288 x 128 87.2-87.6 against
// 85.9-86.4 (w1 streaming in 256 threads: 78.8-78.9 and 85.9).
// cuda_kernel_bench, prefetching: row_kernels.cuh's kRowPrefetch. In the sweep
// (one call) it ran 80.1% at 65536 x 128, w1 in 128 threads, the same
// kernel, 80.4, and four rows a warp (w1r4) 80.3.
#define OMNIRT_ROW_CONFIGS_SHORT_LAYER_NORM_F32(X) X(SHORT_LAYER_NORM_F32, w1r2, 32, 1, 2)

// rms_norm over f16/bf16 alone: EVERY's b4 (rows of 2048-4096 elements)
// read and written as streaming accesses, where EVERY's 16-bit b4 is cached
// for softmax and layer_norm (row_config_streams). Both prefetch their first
// blocks' rows (row_config_prefetches_bounded). H200, cuda_kernel_bench
// --sweep, 4096 x 4096, both prefetching: rms_norm f16 80.5% of peak
// streaming against 79.3% cached, bf16 79.6 against 77.6.
#define OMNIRT_ROW_CONFIGS_RMS_NORM_16(X) X(RMS_NORM_16, b4s, 0, 4, 1)

// Every list above, in the order of the plugin's kernel variants
// (launch_plan.h's Variant). Each entry names its list (EVERY: the one of
// every dtype and op; the others OMNIRT_ROW_CONFIGS_<list>; RowConfigList
// below), so that code treating the lists apart pastes it into a name of its
// own per list: a list it does not handle is a compile error, a new list one
// line here.
#define OMNIRT_ROW_CONFIG_LISTS(X)                                                                 \
  OMNIRT_ROW_CONFIGS_EVERY(X) OMNIRT_ROW_CONFIGS_F32(X) OMNIRT_ROW_CONFIGS_WIDE_F32(X)              \
  OMNIRT_ROW_CONFIGS_PACKED(X) OMNIRT_ROW_CONFIGS_LAYER_NORM_16(X) OMNIRT_ROW_CONFIGS_SHORT_F32(X)  \
  OMNIRT_ROW_CONFIGS_SHORT_SOFTMAX_F32(X) OMNIRT_ROW_CONFIGS_SHORT_LAYER_NORM_F32(X)               \
  OMNIRT_ROW_CONFIGS_RMS_NORM_16(X)

// softmax over 16-bit rows longer than b4 holds in kMaxRowThreads threads,
// up to kSharedRowBytes, runs "sh" (shared_row_softmax.cuh): a block per row
// that keeps the row in shared memory, with one reduction of (max, sum)
// pairs; light on registers, so that several rows are in flight per SM
// (H200, 4096 x 32000 f16: 72% of peak where the fastest register or loop
// kernel reached 60%, in one sweep; 76-79% in cuda_kernel_bench since the
// bulk-copy engine brings the row on sm_90 and later, 82-83% since L2 is
// first asked to prefetch it and bf16 converts by shift and mask).
//
// layer_norm over 16-bit rows that EVERY's b4 holds in kPreferredRowThreads
// (1025-4096 elements) runs "sh" too (shared_row_layer_norm.cuh): b4's
// blocks, the row in shared memory brought by the bulk-copy engine, the
// weight and bias in the registers b4 spends on the row (H200, 4096 x 4096
// 80.5-81.2% of peak where b4 ran 73.9-75.6%; 32768 x 2048 86.5-87.2%
// where it ran 85.4-86.0%).
//
// Rows longer than the register configurations hold, or whose rows do not
// start 16-byte aligned, run a loop kernel instead: a block per row that reads
// the row once per pass (L2 keeps it between passes), in 16-byte packs
// ("lv") or element by element ("ls"). softmax over another dimension than
// the last runs "cols": a thread per column walking its strided row.

namespace omnirt::cuda::kernels {

/// The lists of register configurations above, by the name their entries
/// carry (spelled as in the macros' names, which paste it).
enum class RowConfigList {
  EVERY,
  F32,
  WIDE_F32,
  PACKED,
  LAYER_NORM_16,
  SHORT_F32,
  SHORT_SOFTMAX_F32,
  SHORT_LAYER_NORM_F32,
  RMS_NORM_16
};

/// Most threads of a group configuration (lanes > 0; its __launch_bounds__),
/// and the block size of those of every list but the short f32 softmax's and
/// layer_norm's: 256 / lanes groups, each taking its rows at once. The
/// kernels take their groups from blockDim, so that any multiple of 32 up to
/// it runs them.
constexpr int kGroupThreads = 256;
/// Block sizes of SHORT_SOFTMAX_F32's and SHORT_LAYER_NORM_F32's group
/// configurations (measured: the lists' comments above).
constexpr int kShortSoftmaxThreads = 64;
constexpr int kShortLayerNormThreads = 128;
/// Block size of the group configurations of `list`.
constexpr int group_threads(RowConfigList list) {
  switch (list) {
    case RowConfigList::SHORT_SOFTMAX_F32: return kShortSoftmaxThreads;
    case RowConfigList::SHORT_LAYER_NORM_F32: return kShortLayerNormThreads;
    default: return kGroupThreads;
  }
}
/// Most threads of a whole-block configuration (its __launch_bounds__).
constexpr int kMaxRowThreads = 512;
/// Fewest threads of a whole-block configuration.
constexpr int kMinRowThreads = 64;
/// Most threads of a whole-block configuration the planner takes while a
/// configuration of more packs a thread holds the row in as few: on the
/// H200 such blocks (more of them per SM, cheaper reductions) ran 1-6%
/// faster, layer_norm's 16-bit rows up to 8192 by 6-25% (bench/cuda's
/// --sweep). The f32 norms take kF32NormPacks first. More rows in flight
/// per SM did not help the 16-bit rows of 4096 (H200, --sweep, layer_norm
/// f16 4096 x 4096, b4 in 128 threads 18.8 us, 8 blocks per SM): two rows a
/// block (128 registers, 4 blocks) 20.1 us; compiled for 10 blocks per SM
/// (48 registers, spilling 32 bytes) 20.7, for 12 (40) 25.7, or 20.9 with
/// the row packed; b2 in 256 threads 19.8. rms_norm and softmax there
/// within +-1% so. Two rows a block held packed, each pack's weight and bias
/// loaded once for both (diag probe, H200, f16 / bf16): 64 registers, 8
/// blocks per SM, 72.4 / 67.5% of peak where b4 ran 75.1 / 73.6%; 72
/// registers 73.9 / 70.9, 80 74.1 / 71.3; softmax so 41-52%.
constexpr int kPreferredRowThreads = 128;
/// Packs a thread of the configuration rms_norm and layer_norm over f32 take
/// first, in blocks of up to kMaxRowThreads (b4: rows of 2048 to 8192
/// elements), before kPreferredRowThreads applies: on the H200 (--sweep)
/// 4096-element rows ran 2% (rms_norm) and 7% (layer_norm) faster as b4 in
/// 256 threads than as b8 in 128, 8192-element rows 2% as b4 in 512 than as
/// b16 in 128; softmax's 4096-element rows 1.4% slower, so not softmax.
constexpr int kF32NormPacks = 4;
/// Most threads of a wide configuration (OMNIRT_ROW_CONFIGS_WIDE_F32).
constexpr int kWideRowThreads = 1024;
/// Most threads of a whole-block configuration of `list` (its __launch_bounds__).
constexpr int most_row_threads(RowConfigList list) {
  return list == RowConfigList::WIDE_F32 ? kWideRowThreads : kMaxRowThreads;
}
/// Whether the plugin has kernels of `list` for elements of `element_bytes`
/// (EVERY's for every size, the 16-bit lists' for 2, the f32 ones' for 4).
constexpr bool row_list_has_dtype(RowConfigList list, int element_bytes) {
  switch (list) {
    case RowConfigList::EVERY: return true;
    case RowConfigList::PACKED:
    case RowConfigList::LAYER_NORM_16:
    case RowConfigList::RMS_NORM_16: return element_bytes == 2;
    default: return element_bytes == 4;
  }
}
/// Whether the plugin's kernels of `list` over elements of `element_bytes`
/// read and write as streaming accesses (row_kernels.cuh's Access) rather
/// than cached ones: WIDE_F32's, and every 16-bit kernel that holds its row
/// as floats (EVERY's, LAYER_NORM_16's and RMS_NORM_16's), before
/// row_config_streams takes out the configurations that prefetch.
/// H200, cuda_kernel_bench, each kernel of EVERY, F32 and LAYER_NORM_16
/// streaming against cached, two runs each in one session: the 16-bit
/// 4096 x 4096 rows (b4) 6.6-7.7% faster in the norms, 3.1-3.6% in softmax;
/// 16-bit 65536 x 128 1-3%, 32768 x 2048 and 16384 x 8192 (softmax) 0-1.5%;
/// 524288 x 128 within +-1.2%. f32 lost where 16-bit gained nothing:
/// layer_norm 16384 x 8192 (b4 in 512 threads) 5.3% slower, softmax
/// 4096 x 32000 (F32's b16) 7.7%.
constexpr bool row_list_streams(RowConfigList list, int element_bytes) {
  switch (list) {
    case RowConfigList::WIDE_F32: return true;
    case RowConfigList::EVERY:
    case RowConfigList::LAYER_NORM_16:
    case RowConfigList::RMS_NORM_16: return element_bytes == 2;
    default: return false;
  }
}
/// Whether a register configuration of `packs` packs a thread in `lanes`
/// lanes (0: a block) over elements of `element_bytes` has its blocks whose
/// rows start in the input's first 4 MiB have L2 prefetch them before the
/// wait for the previous kernel, every block launching its dependents late
/// (row_kernels.cuh's RowPrefetch::kFirstStepsBounded, where the measures of
/// the f32 groups are): the f32 groups of rows of 17-32 packs (lanes x packs
/// = 32: 65-128 elements, the SHORT lists and EVERY's w1) and the 16-bit b4
/// blocks (rows of 2048-4096 elements). The latter, H200,
/// cuda_kernel_bench, 4096 x 4096, three runs each, streaming as before:
/// rms_norm f16 / bf16 81.2-81.4 / 80.8-81.0% of peak, softmax 79.0-79.2,
/// layer_norm 74.4-74.5 / 73.4-73.6, where the kernels without it ran
/// 80.6 / 80.2, 78.2-78.7 and 75.1 / 73.9 on another H200 (the streaming
/// reference 80.8-81.2% on both).
constexpr bool row_config_prefetches_bounded(int element_bytes, int lanes, int packs) {
  return (element_bytes == 4 && lanes > 0 && lanes * packs == 32) ||
         (element_bytes == 2 && lanes == 0 && packs == 4);
}
/// Whether the plugin's kernel of configuration (`lanes`, `packs`) of
/// `list` over elements of `element_bytes` streams: as its list does
/// (row_list_streams), but those that prefetch bounded read and write
/// cached, all but RMS_NORM_16's b4s (rms_norm's 16-bit blocks, a list of
/// their own for this). H200, cuda_kernel_bench --sweep, in the bench's
/// torch context, both prefetching, cached against streaming, one run each:
/// 4096 x 4096 f16 / bf16 softmax 81.3 / 81.5% of peak against 78.4 / 78.5,
/// layer_norm 75.1 / 74.2 against 73.8 / 72.8, rms_norm 79.3 / 77.6 against
/// 80.5 / 79.6; f32 65536 x 128 rms_norm w1r1 81.1 against 80.3, softmax
/// g16p2 83.1 against 81.5, layer_norm w1r2 80.9 against 79.5; 524288 x 128
/// (another H200) 126.8 us against 128.3, 127.1 against 128.3, 127.0
/// against 128.1. Without the prefetch they ran faster streaming
/// (row_list_streams, the lists' comments).
constexpr bool row_config_streams(RowConfigList list, int element_bytes, int lanes, int packs) {
  if (list != RowConfigList::RMS_NORM_16 && row_config_prefetches_bounded(element_bytes, lanes, packs)) return false;
  return row_list_streams(list, element_bytes);
}
/// Registers a thread of a register configuration may spend holding the
/// `params` per-column parameters of its op (rms_norm's weight: 1;
/// layer_norm's weight and bias: 2) over elements of `element_bytes` across
/// the rows it takes (4 a pack; row_keeps_columns). What cost no blocks per
/// SM where it was measured: 16 for rms_norm (b4 over f32 went from 40
/// registers to 55 and ran faster); 8 for layer_norm over f32, which needs
/// more registers already (w2: 40 -> 61, 2.8% slower at 65536 x 256); none
/// for layer_norm's 16-bit kernels (g16r4: 64 -> 73, 3 blocks of 256 per SM
/// instead of 4, 5.8-7.5% slower at 524288 x 128; b4 kept: 59 -> 93, 5
/// blocks of 128 instead of 8, 4096 x 4096 18.6 -> 20.3 us in f16, 19.0 ->
/// 20.8 in bf16; kept beside a packed row, at 64 with spills, 18.8 and 19.9,
/// and 16384 x 8192 136.2 against b8h's 132.7; H200, --sweep, two runs).
/// 16-bit b4 keeping its weight alone, loading the bias after the
/// reductions (diag probe, f16 / bf16 4096 x 4096): beside a packed row (63
/// registers) 74.6 / 72.1% of peak where the plugin's ran 74.2 / 73.0,
/// beside floats (64, spilling 20 bytes) 72.0 / 71.7.
constexpr int kept_column_registers(int params, int element_bytes) {
  return params == 1 ? 16 : element_bytes == 4 ? 8 : 0;
}
/// Whether a register configuration of `packs` packs a thread loads its op's
/// per-column parameters at its packs once and keeps them for every row it
/// takes, rather than loading them again for each row after its reductions.
/// Not the packed configurations: they are bounded to 64 registers. H200,
/// cuda_kernel_bench, two runs each in one session against loading per row:
/// rms_norm 4096 x 4096 1.7-3.3% faster (f32 79.6% -> 81.1-81.8% of peak),
/// 65536 x 128 1.0-3.0%; layer_norm f32 65536 x 128 3.7-4.7%; the other
/// cases within +-1%, as far as the unchanged kernels moved.
constexpr bool row_keeps_columns(int params, int packs, int element_bytes, bool packed) {
  return !packed && params * packs * 4 <= kept_column_registers(params, element_bytes);
}
/// Packs a thread of layer_norm's "sh" (shared_row_layer_norm.cuh) holds the
/// weight and bias of: b4's, in whose blocks it runs.
constexpr int kSharedNormPacks = 4;
/// Block size of the shared-memory softmax ("sh").
constexpr int kSharedRowThreads = 512;
/// Packs each thread of the shared-memory softmax loads before it uses any,
/// where it loads the row itself (before sm_90).
constexpr int kSharedRowPacks = 4;
/// Longest row, in bytes, the shared-memory softmax takes: two blocks fit an
/// SM's 228 KiB of shared memory.
constexpr int kSharedRowBytes = 96 * 1024;
/// 16-byte packs each geglu thread loads before it computes any, on a grid
/// of a block per kElementwiseThreads x kGegluPacks of them (launch_plan.cpp).
/// H200 (cuda_kernel_bench --sweep geglu), 16384 x 8192: 1 on that grid 90.5%
/// of peak in f32, 89.8% in f16; 2 on it 90.9% and 87.9%; 2 on a grid that
/// only fills the SMs (the plugin's before, tuned on the H100) 79.1% and
/// 80.7%. At 96 MiB 1 is ahead of 2 by 2-8%.
constexpr int kGegluPacks = 1;
/// Block size of the loop kernels, the column softmax and geglu.
constexpr int kLoopThreads = 512;
constexpr int kElementwiseThreads = 256;
/// Bytes of one pack.
constexpr int kPackBytes = 16;

}  // namespace omnirt::cuda::kernels

#endif  // OMNIRT_PLUGINS_CUDA_KERNELS_ROW_CONFIGS_H_
