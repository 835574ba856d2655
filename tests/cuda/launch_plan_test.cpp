// The named-op launch planner of the cuda plugin (launch_plan.h), on the CPU:
// every register configuration it picks holds the whole row, blocks stay
// within the kernels' launch bounds, grids are sized to the SM count, long
// rows go to each op's kernel, and rows that cannot be read in packs go to
// the loop kernels.
#include "launch_plan.h"

#include <gtest/gtest.h>

#include <string>

namespace omnirt::cuda {
namespace {

using namespace kernels;

struct Config {
  int lanes, packs, max_threads, group_threads;
};
Config config_of(int variant) {
  const Config configs[] = {
#define OMNIRT_TEST_CONFIG(list, suffix, lanes, packs, rows) \
  {lanes, packs, most_row_threads(RowConfigList::list), group_threads(RowConfigList::list)},
      OMNIRT_ROW_CONFIG_LISTS(OMNIRT_TEST_CONFIG)
#undef OMNIRT_TEST_CONFIG
  };
  return configs[variant];
}

constexpr int kHopperSms = 132;  // H100 and H200 SXM
constexpr RowOp kRowOps[] = {RowOp::kRmsNorm, RowOp::kLayerNorm, RowOp::kSoftmax};

TEST(LaunchPlanTest, RegisterConfigurationsHoldTheWholeRow) {
  for (RowOp op : kRowOps) {
    for (int bytes : {4, 2}) {
      const int per_pack = kPackBytes / bytes;
      for (long long n = per_pack; n <= 60000; n += per_pack) {
        SCOPED_TRACE("op " + std::to_string(int(op)) + ", n " + std::to_string(n) + ", " +
                     std::to_string(bytes) + "-byte elements");
        const LaunchPlan plan = plan_rows(op, 1000, n, bytes, true, kHopperSms);
        ASSERT_GT(plan.grid, 0u);
        ASSERT_EQ(plan.block % 32, 0u);
        EXPECT_EQ(plan.shared_bytes, plan.variant == kSharedRow ? unsigned(n * bytes) : 0u);
        if (plan.variant == kLoopPacks) {
          // Only rows longer than the largest configuration: 512 threads of 64
          // floats (16 packs of f32, 8 of 16-bit elements), and for softmax
          // 16-bit rows longer than shared memory takes.
          EXPECT_GT(n, (long long)kMaxRowThreads * 64);
          if (op == RowOp::kSoftmax && bytes == 2) {
            EXPECT_GT(n * bytes, kSharedRowBytes);
          }
          EXPECT_EQ(plan.block, unsigned(kLoopThreads));
          continue;
        }
        if (plan.variant == kSharedRow) {
          EXPECT_NE(op, RowOp::kRmsNorm);
          EXPECT_EQ(bytes, 2);
          EXPECT_EQ(plan.grid, 1000u);
          if (op == RowOp::kSoftmax) {
            EXPECT_LE(n * bytes, kSharedRowBytes);
            EXPECT_EQ(plan.block, unsigned(kSharedRowThreads));
          } else {  // layer_norm's: b4's blocks, the fewest warps whose weight and bias packs cover the row
            EXPECT_GE(plan.block, unsigned(kMinRowThreads));
            EXPECT_LE(plan.block, unsigned(kPreferredRowThreads)) << "the kernel's launch bounds";
            EXPECT_GE((long long)plan.block * kSharedNormPacks * per_pack, n);
            if (plan.block > unsigned(kMinRowThreads)) {
              EXPECT_LT((long long)(plan.block - 32) * kSharedNormPacks * per_pack, n);
            }
          }
          continue;
        }
        ASSERT_LT(plan.variant, kLoopPacks) << variant_suffix(plan.variant);
        const Config c = config_of(plan.variant);
        const long long lanes = c.lanes > 0 ? c.lanes : plan.block;
        EXPECT_GE(lanes * c.packs * per_pack, n) << variant_suffix(plan.variant);
        EXPECT_TRUE(variant_has_dtype(plan.variant, bytes)) << variant_suffix(plan.variant);
        EXPECT_LE(c.packs * per_pack, 64) << "floats a thread keeps";
        if (c.lanes > 0) {
          EXPECT_EQ(plan.block, unsigned(c.group_threads));
          EXPECT_LE(plan.block, unsigned(kGroupThreads)) << "the kernels' launch bounds";
        } else {
          EXPECT_GE(plan.block, unsigned(kMinRowThreads));
          EXPECT_LE(plan.block, unsigned(c.max_threads));
          // The fewest threads that hold the row: one warp fewer would not.
          if (plan.block > unsigned(kMinRowThreads)) {
            EXPECT_LT((lanes - 32) * c.packs * per_pack, n) << variant_suffix(plan.variant);
          }
          if (plan.variant == kRow_b8h) {
            EXPECT_NE(op, RowOp::kSoftmax);
          }
          if (plan.variant == kRow_k8) {
            EXPECT_NE(op, RowOp::kSoftmax);
          }
        }
      }
    }
  }
}

std::string suffix(long long n, int bytes, RowOp op = RowOp::kRmsNorm, bool aligned = true) {
  return variant_suffix(plan_rows(op, 65536, n, bytes, aligned, kHopperSms).variant);
}

TEST(LaunchPlanTest, PicksByRowLength) {
  EXPECT_EQ(suffix(128, 4, RowOp::kLayerNorm), "w1r2");  // its own: a warp per row, one pack per lane
  EXPECT_EQ(suffix(68, 4, RowOp::kLayerNorm), "w1r2");
  EXPECT_EQ(suffix(64, 4, RowOp::kLayerNorm), "g16");  // a smaller group holds it
  EXPECT_EQ(suffix(128, 2), "g16");  // half a warp per row
  EXPECT_EQ(suffix(128, 2, RowOp::kSoftmax), "g16");
  EXPECT_EQ(suffix(128, 2, RowOp::kLayerNorm), "g16r4");  // its own: four rows at a time
  EXPECT_EQ(suffix(72, 2, RowOp::kLayerNorm), "g16r4");
  EXPECT_EQ(suffix(64, 2, RowOp::kLayerNorm), "g8");  // a smaller group holds it
  EXPECT_EQ(suffix(128, 4), "w1r1");  // rms_norm over f32: a row at a time, not w1's two
  EXPECT_EQ(suffix(128, 4, RowOp::kSoftmax), "g16p2");  // softmax over f32: its own
  EXPECT_EQ(suffix(68, 4, RowOp::kSoftmax), "g16p2");
  EXPECT_EQ(suffix(256, 2), "w1");  // 16-bit: not w1r1
  EXPECT_EQ(suffix(256, 2, RowOp::kLayerNorm), "w1");  // nor w1r2
  EXPECT_EQ(suffix(8, 2), "g4");
  EXPECT_EQ(suffix(512, 4), "w4");
  EXPECT_EQ(suffix(32000, 4), "k8");  // a vocabulary-sized f32 row stays in registers
  EXPECT_EQ(suffix(32000, 4, RowOp::kSoftmax), "b16");
  EXPECT_EQ(suffix(32768 + 4, 4), "lv");
  EXPECT_EQ(suffix(32768 + 8, 2), "lv");
}

// Blocks of at most kPreferredRowThreads where some configuration holds the
// row so, the fewest packs a thread of those; else the fewest that fit. The
// f32 norms first take kF32NormPacks a thread in up to kMaxRowThreads.
TEST(LaunchPlanTest, BlocksPerRowPreferFewThreads) {
  const auto block_of = [](RowOp op, long long n, int bytes) {
    const LaunchPlan plan = plan_rows(op, 4096, n, bytes, true, kHopperSms);
    return std::string(variant_suffix(plan.variant)) + "/" + std::to_string(plan.block);
  };
  for (RowOp op : kRowOps) {
    EXPECT_EQ(block_of(op, 2048, 4), "b4/128");
    if (op == RowOp::kSoftmax) {
      EXPECT_EQ(block_of(op, 4096, 4), "b8/128");
      EXPECT_EQ(block_of(op, 8192, 4), "b16/128");
    } else {
      EXPECT_EQ(block_of(op, 4096, 4), "b4/256");
      EXPECT_EQ(block_of(op, 8192, 4), "b4/512");
    }
    if (op == RowOp::kSoftmax) {  // none in 128: the fewest packs in 512
      EXPECT_EQ(block_of(op, 16384, 4), "b8/512");
      EXPECT_EQ(block_of(op, 32000, 4), "b16/512");
    } else {  // the norms' f32 rows that long: the wide configuration, up to 1024 threads
      EXPECT_EQ(block_of(op, 16384, 4), "k8/512");
      EXPECT_EQ(block_of(op, 32000, 4), "k8/1024");
    }
    // rms_norm's 16-bit b4 is its own (RMS_NORM_16: read and written as
    // streaming accesses, where EVERY's b4 is cached in 16-bit); layer_norm's
    // rows there are held in shared memory, in b4's blocks.
    const std::string b4 = op == RowOp::kRmsNorm ? "b4s" : op == RowOp::kLayerNorm ? "sh" : "b4";
    EXPECT_EQ(block_of(op, 4096, 2), b4 + "/128");
    EXPECT_EQ(block_of(op, 2048, 2), b4 + "/64");
  }
  // 16-bit rows longer than b4 holds in 128 threads: the norms hold them
  // packed, softmax in more threads of b4, then in shared memory.
  EXPECT_EQ(block_of(RowOp::kRmsNorm, 8192, 2), "b8h/128");
  EXPECT_EQ(block_of(RowOp::kLayerNorm, 32000, 2), "b8h/512");
  EXPECT_EQ(block_of(RowOp::kLayerNorm, 8192, 2), "b8h/128");
  EXPECT_EQ(block_of(RowOp::kSoftmax, 8192, 2), "b4/256");
  EXPECT_EQ(block_of(RowOp::kSoftmax, 16384, 2), "b4/512");
}

// Which kernels prefetch their first rows (the f32 groups of rows of 17-32
// packs, the 16-bit b4 blocks) and which read and write as streaming
// accesses: the 16-bit ones that hold rows as floats and f32's wide k8, but
// those that prefetch, save rms_norm's own b4s.
TEST(LaunchPlanTest, WhichKernelsStream) {
  EXPECT_TRUE(kernels::row_config_prefetches_bounded(2, 0, 4));
  EXPECT_FALSE(kernels::row_config_prefetches_bounded(4, 0, 4));
  EXPECT_FALSE(kernels::row_config_prefetches_bounded(2, 0, 8));
  EXPECT_FALSE(kernels::row_config_prefetches_bounded(2, 32, 4));
  EXPECT_TRUE(kernels::row_config_prefetches_bounded(4, 32, 1));
  EXPECT_TRUE(kernels::row_config_prefetches_bounded(4, 16, 2));
  EXPECT_FALSE(kernels::row_config_prefetches_bounded(4, 32, 2));
  EXPECT_FALSE(kernels::row_config_prefetches_bounded(2, 32, 1));
  EXPECT_FALSE(kernels::row_config_streams(kernels::RowConfigList::EVERY, 2, 0, 4));
  EXPECT_TRUE(kernels::row_config_streams(kernels::RowConfigList::RMS_NORM_16, 2, 0, 4));
  EXPECT_TRUE(kernels::row_config_streams(kernels::RowConfigList::EVERY, 2, 32, 4));
  EXPECT_FALSE(kernels::row_config_streams(kernels::RowConfigList::EVERY, 4, 0, 4));
  EXPECT_TRUE(kernels::row_config_streams(kernels::RowConfigList::WIDE_F32, 4, 0, 8));
  EXPECT_FALSE(kernels::row_config_streams(kernels::RowConfigList::SHORT_F32, 4, 32, 1));
  EXPECT_FALSE(kernels::row_config_streams(kernels::RowConfigList::SHORT_SOFTMAX_F32, 4, 16, 2));
  EXPECT_FALSE(kernels::row_config_streams(kernels::RowConfigList::SHORT_LAYER_NORM_F32, 4, 32, 1));
}

// softmax's 16-bit rows beyond b4 go to shared memory, up to kSharedRowBytes.
TEST(LaunchPlanTest, LongSoftmaxRowsInSharedMemory) {
  const LaunchPlan shared = plan_rows(RowOp::kSoftmax, 4096, 32000, 2, true, kHopperSms);
  EXPECT_EQ(shared.variant, kSharedRow);
  EXPECT_EQ(shared.block, unsigned(kSharedRowThreads));
  EXPECT_EQ(shared.grid, 4096u);
  EXPECT_EQ(shared.shared_bytes, 64000u);
  EXPECT_EQ(suffix(16384 + 8, 2, RowOp::kSoftmax), "sh");
  EXPECT_EQ(suffix(kSharedRowBytes / 2, 2, RowOp::kSoftmax), "sh");
  EXPECT_EQ(suffix(kSharedRowBytes / 2 + 8, 2, RowOp::kSoftmax), "lv");
  EXPECT_EQ(suffix(32000, 4, RowOp::kSoftmax), "b16");
  EXPECT_EQ(suffix(32768 + 8, 2, RowOp::kLayerNorm), "lv");
}

// layer_norm's 16-bit rows that b4 holds in up to kPreferredRowThreads
// (1025-4096 elements) are held in shared memory instead, in b4's blocks:
// the dynamic shared memory is the row.
TEST(LaunchPlanTest, LayerNormRowsOfB4InSharedMemory) {
  const LaunchPlan shared = plan_rows(RowOp::kLayerNorm, 4096, 4096, 2, true, kHopperSms);
  EXPECT_EQ(shared.variant, kSharedRow);
  EXPECT_EQ(shared.block, 128u);
  EXPECT_EQ(shared.grid, 4096u);
  EXPECT_EQ(shared.shared_bytes, 8192u);
  EXPECT_EQ(plan_rows(RowOp::kLayerNorm, 4096, 3000, 2, true, kHopperSms).block, 96u);
  EXPECT_EQ(plan_rows(RowOp::kLayerNorm, 4096, 3000, 2, true, kHopperSms).shared_bytes, 6000u);
  EXPECT_EQ(suffix(1024 + 8, 2, RowOp::kLayerNorm), "sh");
  EXPECT_EQ(suffix(1024, 2, RowOp::kLayerNorm), "w4");  // a warp holds it
  EXPECT_EQ(suffix(4096 + 8, 2, RowOp::kLayerNorm), "b8h");
  EXPECT_EQ(suffix(4096, 4, RowOp::kLayerNorm), "b4");  // f32 keeps its b4 in 256 threads
  EXPECT_EQ(suffix(4096 + 8, 2, RowOp::kLayerNorm, false), "ls");
}

TEST(LaunchPlanTest, UnalignedRowsAreReadElementByElement) {
  EXPECT_EQ(plan_rows(RowOp::kRmsNorm, 4, 4096, 4, false, kHopperSms).variant, kLoopElements);
  EXPECT_EQ(plan_rows(RowOp::kRmsNorm, 4, 1001, 4, true, kHopperSms).variant, kLoopElements);  // rows not 16-byte aligned
  EXPECT_EQ(plan_rows(RowOp::kRmsNorm, 4, 7, 2, true, kHopperSms).variant, kLoopElements);
}

TEST(LaunchPlanTest, RowKernelsGetABlockForEachStepOfRowsAndLoopsFillTheGpu) {
  // 16384 rows of a block each: 16384 blocks of 512 threads, not a grid
  // that fills the SMs (the sweep measured that slower).
  const LaunchPlan big = plan_rows(RowOp::kRmsNorm, 16384, 16384, 4, true, kHopperSms);
  EXPECT_EQ(std::string(variant_suffix(big.variant)), "k8");
  EXPECT_EQ(big.block, 512u);
  EXPECT_EQ(big.grid, 16384u);
  // But layer_norm's wide configuration walks rows on a grid that fills the
  // SMs (SM count x 2048 threads / 1024 a block).
  const LaunchPlan wide = plan_rows(RowOp::kLayerNorm, 4096, 32000, 4, true, kHopperSms);
  EXPECT_EQ(std::string(variant_suffix(wide.variant)), "k8");
  EXPECT_EQ(wide.block, 1024u);
  EXPECT_EQ(wide.grid, unsigned(kHopperSms * 2));
  // Few rows: a block each, no more.
  EXPECT_EQ(plan_rows(RowOp::kRmsNorm, 3, 8192, 2, true, kHopperSms).grid, 3u);
  // 16 rows per 256-thread block of 32-lane groups taking 2 rows each (w1,
  // 16-bit rows of 256): 1000 rows need 63 blocks, with or without a known
  // SM count.
  EXPECT_EQ(plan_rows(RowOp::kLayerNorm, 1000, 256, 2, true, kHopperSms).grid, 63u);
  EXPECT_EQ(plan_rows(RowOp::kLayerNorm, 1000, 256, 2, true, 0).grid, 63u);
  // layer_norm's f32 w1r2 in blocks of 128 threads: 4 groups of 2 rows, 125 blocks.
  const LaunchPlan short_layer_norm = plan_rows(RowOp::kLayerNorm, 1000, 128, 4, true, kHopperSms);
  EXPECT_EQ(short_layer_norm.block, unsigned(kShortLayerNormThreads));
  EXPECT_EQ(short_layer_norm.grid, 125u);
  // One row each (w1r1): 125.
  EXPECT_EQ(plan_rows(RowOp::kRmsNorm, 1000, 128, 4, true, kHopperSms).grid, 125u);
  // softmax's g16p2 in blocks of 64 threads: 4 groups of 2 rows, 125 blocks.
  const LaunchPlan short_softmax = plan_rows(RowOp::kSoftmax, 1000, 128, 4, true, kHopperSms);
  EXPECT_EQ(short_softmax.block, unsigned(kShortSoftmaxThreads));
  EXPECT_EQ(short_softmax.grid, 125u);
  // The loop kernels (unaligned rows) walk rows in grid-stride loops over a
  // grid that fills the GPU: 4 resident blocks of 512 threads per SM.
  EXPECT_EQ(plan_rows(RowOp::kRmsNorm, 1LL << 20, 4097, 4, true, kHopperSms).grid, unsigned(kHopperSms * 4));
}

TEST(LaunchPlanTest, ColumnsAndElementwise) {
  EXPECT_EQ(plan_columns(100, kHopperSms).variant, kColumns);
  EXPECT_EQ(plan_columns(100, kHopperSms).grid, 1u);
  EXPECT_EQ(plan_elementwise(3, 2, true).variant, kElementwisePacks);
  EXPECT_EQ(plan_elementwise(3, 2, true).grid, 1u);  // the tail alone
  EXPECT_EQ(plan_elementwise(1 << 20, 4, false).variant, kElementwiseElements);
  // A block for every kElementwiseThreads x kGegluPacks pieces (of 16 bytes
  // when aligned, one element when not), up to CUDA's largest grid.
  const long long per_block = (long long)kElementwiseThreads * kGegluPacks;
  EXPECT_EQ(plan_elementwise(1LL << 28, 4, true).grid, unsigned((1LL << 26) / per_block));
  EXPECT_EQ(plan_elementwise(1LL << 28, 4, false).grid, unsigned((1LL << 28) / per_block));
  EXPECT_EQ(plan_elementwise(1LL << 50, 2, true).grid, 0x7fffffffu);
}

TEST(LaunchPlanTest, NothingToDo) {
  EXPECT_EQ(plan_rows(RowOp::kRmsNorm, 0, 128, 4, true, kHopperSms).grid, 0u);
  EXPECT_EQ(plan_rows(RowOp::kRmsNorm, 16, 0, 4, true, kHopperSms).grid, 0u);
  EXPECT_EQ(plan_columns(0, kHopperSms).grid, 0u);
  EXPECT_EQ(plan_elementwise(0, 4, true).grid, 0u);
}

TEST(LaunchPlanTest, EveryVariantHasASuffix) {
  for (int v = 0; v < kVariants; ++v) EXPECT_STRNE(variant_suffix(v), "?") << v;
  EXPECT_STREQ(variant_suffix(kVariants), "?");
  EXPECT_TRUE(variant_has_dtype(kRow_b16, 4));
  EXPECT_FALSE(variant_has_dtype(kRow_b16, 2));
  EXPECT_FALSE(variant_has_dtype(kRow_b8, 2));
  EXPECT_TRUE(variant_has_dtype(kRow_k8, 4));
  EXPECT_FALSE(variant_has_dtype(kRow_k8, 2));
  EXPECT_TRUE(variant_has_dtype(kRow_w1r1, 4));
  EXPECT_FALSE(variant_has_dtype(kRow_w1r1, 2));
  EXPECT_TRUE(variant_has_dtype(kRow_g16p2, 4));
  EXPECT_FALSE(variant_has_dtype(kRow_g16p2, 2));
  EXPECT_TRUE(variant_has_dtype(kRow_w1r2, 4));
  EXPECT_FALSE(variant_has_dtype(kRow_w1r2, 2));
  EXPECT_TRUE(variant_has_dtype(kRow_b4, 2));
  EXPECT_TRUE(variant_has_dtype(kRow_b4s, 2));
  EXPECT_FALSE(variant_has_dtype(kRow_b4s, 4));
  EXPECT_TRUE(variant_has_dtype(kRow_b8h, 2));
  EXPECT_FALSE(variant_has_dtype(kRow_b8h, 4));
  EXPECT_TRUE(variant_has_dtype(kSharedRow, 2));
}

}  // namespace
}  // namespace omnirt::cuda
