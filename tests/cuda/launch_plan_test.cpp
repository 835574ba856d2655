// The named-op launch planner of the cuda plugin (launch_plan.h), on the CPU:
// every register configuration it picks holds the whole row, blocks stay
// within the kernels' launch bounds, grids are sized to the SM count, and
// rows that cannot be read in packs go to the loop kernels.
#include "launch_plan.h"

#include <gtest/gtest.h>

#include <string>

namespace omnirt::cuda {
namespace {

using namespace kernels;

struct Config {
  int lanes, packs;
};
Config config_of(int variant) {
  const Config configs[] = {
#define OMNIRT_TEST_CONFIG(suffix, lanes, packs, rows) {lanes, packs},
      OMNIRT_ROW_CONFIGS(OMNIRT_TEST_CONFIG) OMNIRT_ROW_CONFIGS_F32(OMNIRT_TEST_CONFIG)
#undef OMNIRT_TEST_CONFIG
  };
  return configs[variant];
}

constexpr int kH100Sms = 132;

TEST(LaunchPlanTest, RegisterConfigurationsHoldTheWholeRow) {
  for (int bytes : {4, 2}) {
    const int per_pack = kPackBytes / bytes;
    for (long long n = per_pack; n <= 40000; n += per_pack) {
      SCOPED_TRACE("n " + std::to_string(n) + ", " + std::to_string(bytes) + "-byte elements");
      const LaunchPlan plan = plan_rows(1000, n, bytes, true, kH100Sms);
      ASSERT_GT(plan.grid, 0u);
      ASSERT_EQ(plan.block % 32, 0u);
      if (plan.variant == kLoopPacks) {
        // Only rows longer than the largest configuration: 512 threads of 64
        // floats (16 packs of f32, 8 of 16-bit elements).
        EXPECT_GT(n, (long long)kMaxRowThreads * 64);
        EXPECT_EQ(plan.block, unsigned(kLoopThreads));
        continue;
      }
      ASSERT_LT(plan.variant, kLoopPacks) << variant_suffix(plan.variant);
      const Config c = config_of(plan.variant);
      const long long lanes = c.lanes > 0 ? c.lanes : plan.block;
      EXPECT_GE(lanes * c.packs * per_pack, n) << variant_suffix(plan.variant);
      EXPECT_TRUE(variant_has_dtype(plan.variant, bytes)) << variant_suffix(plan.variant);
      EXPECT_LE(c.packs * per_pack, 64) << "floats a thread keeps";
      if (c.lanes > 0) {
        EXPECT_EQ(plan.block, unsigned(kGroupThreads));
      } else {
        EXPECT_GE(plan.block, unsigned(kMinRowThreads));
        EXPECT_LE(plan.block, unsigned(kMaxRowThreads));
        // The fewest threads that hold the row: one warp fewer would not.
        if (plan.block > unsigned(kMinRowThreads)) {
          EXPECT_LT((lanes - 32) * c.packs * per_pack, n) << variant_suffix(plan.variant);
        }
      }
    }
  }
}

TEST(LaunchPlanTest, PicksByRowLength) {
  auto suffix = [](long long n, int bytes) {
    return std::string(variant_suffix(plan_rows(65536, n, bytes, true, kH100Sms).variant));
  };
  EXPECT_EQ(suffix(128, 4), "w1");   // a warp per row, one pack per lane
  EXPECT_EQ(suffix(128, 2), "g16");  // half a warp per row
  EXPECT_EQ(suffix(8, 2), "g4");
  EXPECT_EQ(suffix(512, 4), "w4");
  EXPECT_EQ(suffix(4096, 4), "b4");
  EXPECT_EQ(suffix(8192, 2), "b4");
  EXPECT_EQ(suffix(32000, 2), "b8");  // a vocabulary-sized softmax stays in registers
  EXPECT_EQ(suffix(32000, 4), "b16");  // f32 too, in 16 packs a thread
  EXPECT_EQ(suffix(32768 + 4, 4), "lv");
  EXPECT_EQ(suffix(32768 + 8, 2), "lv");
  EXPECT_EQ(plan_rows(4096, 8192, 2, true, kH100Sms).block, 256u);
}

TEST(LaunchPlanTest, UnalignedRowsAreReadElementByElement) {
  EXPECT_EQ(plan_rows(4, 4096, 4, false, kH100Sms).variant, kLoopElements);
  EXPECT_EQ(plan_rows(4, 1001, 4, true, kH100Sms).variant, kLoopElements);  // rows not 16-byte aligned
  EXPECT_EQ(plan_rows(4, 7, 2, true, kH100Sms).variant, kLoopElements);
}

TEST(LaunchPlanTest, RowKernelsGetABlockForEachStepOfRowsAndLoopsFillTheGpu) {
  // 16384 rows of a block each: 16384 blocks of 512 threads, not a grid
  // that fills the SMs (the sweep measured that slower).
  const LaunchPlan big = plan_rows(16384, 16384, 4, true, kH100Sms);
  EXPECT_EQ(std::string(variant_suffix(big.variant)), "b8");
  EXPECT_EQ(big.block, 512u);
  EXPECT_EQ(big.grid, 16384u);
  // Few rows: a block each, no more.
  EXPECT_EQ(plan_rows(3, 8192, 2, true, kH100Sms).grid, 3u);
  // 16 rows per 256-thread block of 32-lane groups taking 2 rows each: 1000
  // rows need 63 blocks, with or without a known SM count.
  EXPECT_EQ(plan_rows(1000, 128, 4, true, kH100Sms).grid, 63u);
  EXPECT_EQ(plan_rows(1000, 128, 4, true, 0).grid, 63u);
  // The loop kernels (unaligned rows) walk rows in grid-stride loops over a
  // grid that fills the GPU: 4 resident blocks of 512 threads per SM.
  EXPECT_EQ(plan_rows(1LL << 20, 4097, 4, true, kH100Sms).grid, unsigned(kH100Sms * 4));
}

TEST(LaunchPlanTest, ColumnsAndElementwise) {
  EXPECT_EQ(plan_columns(100, kH100Sms).variant, kColumns);
  EXPECT_EQ(plan_columns(100, kH100Sms).grid, 1u);
  EXPECT_EQ(plan_elementwise(3, 2, true, kH100Sms).variant, kElementwisePacks);
  EXPECT_EQ(plan_elementwise(3, 2, true, kH100Sms).grid, 1u);  // the tail alone
  EXPECT_EQ(plan_elementwise(1 << 20, 4, false, kH100Sms).variant, kElementwiseElements);
  EXPECT_EQ(plan_elementwise(1LL << 28, 4, true, kH100Sms).grid, unsigned(kH100Sms * 8));
}

TEST(LaunchPlanTest, NothingToDo) {
  EXPECT_EQ(plan_rows(0, 128, 4, true, kH100Sms).grid, 0u);
  EXPECT_EQ(plan_rows(16, 0, 4, true, kH100Sms).grid, 0u);
  EXPECT_EQ(plan_columns(0, kH100Sms).grid, 0u);
  EXPECT_EQ(plan_elementwise(0, 4, true, kH100Sms).grid, 0u);
}

TEST(LaunchPlanTest, EveryVariantHasASuffix) {
  for (int v = 0; v < kVariants; ++v) EXPECT_STRNE(variant_suffix(v), "?") << v;
  EXPECT_STREQ(variant_suffix(kVariants), "?");
  EXPECT_TRUE(variant_has_dtype(kRow_b16, 4));
  EXPECT_FALSE(variant_has_dtype(kRow_b16, 2));
  EXPECT_TRUE(variant_has_dtype(kRow_b8, 2));
}

}  // namespace
}  // namespace omnirt::cuda
