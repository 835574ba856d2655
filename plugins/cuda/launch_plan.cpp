#include "launch_plan.h"

#include <algorithm>

namespace omnirt::cuda {
namespace {

using namespace kernels;

constexpr int kThreadsPerSm = 2048;  // resident threads per SM on sm_80 and sm_90

struct RowConfig {
  int variant, lanes, packs, rows;
  bool f32_only;
};
// In the order the planner tries them: fewest packs per thread first.
constexpr RowConfig kRowConfigs[] = {
#define OMNIRT_ROW_CONFIG(suffix, lanes, packs, rows) {kRow_##suffix, lanes, packs, rows, false},
#define OMNIRT_F32_ROW_CONFIG(suffix, lanes, packs, rows) {kRow_##suffix, lanes, packs, rows, true},
    OMNIRT_ROW_CONFIGS(OMNIRT_ROW_CONFIG) OMNIRT_ROW_CONFIGS_F32(OMNIRT_F32_ROW_CONFIG)
#undef OMNIRT_F32_ROW_CONFIG
#undef OMNIRT_ROW_CONFIG
};

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// Enough blocks of `threads` to fill every SM, or fewer when there is less
// work: the kernels walk their work in grid-stride loops.
unsigned grid_for(long long blocks_of_work, int threads, int sm_count) {
  const long long resident = (long long)std::max(sm_count, 1) * std::max(1, kThreadsPerSm / threads);
  return unsigned(std::max(1LL, std::min(blocks_of_work, resident)));
}

// A block for each step of rows, up to the largest grid: the H100 sweep
// (cuda_kernel_bench --sweep, docs/cuda.md) measured the row kernels 2-13%
// faster launched so than with a grid that only fills the SMs and walks the
// rest in grid-stride loops, in all but the vocabulary-row layer_norm and
// rms_norm f32 cases (within 5%).
unsigned grid_for_rows(long long blocks_of_work) {
  constexpr long long kMaxGridX = 0x7fffffff;
  return unsigned(std::max(1LL, std::min(blocks_of_work, kMaxGridX)));
}

}  // namespace

const char* variant_suffix(int variant) {
  static const char* const kSuffixes[kVariants] = {
#define OMNIRT_ROW_SUFFIX(suffix, lanes, packs, rows) #suffix,
      OMNIRT_ROW_CONFIGS(OMNIRT_ROW_SUFFIX) OMNIRT_ROW_CONFIGS_F32(OMNIRT_ROW_SUFFIX)
#undef OMNIRT_ROW_SUFFIX
      "lv", "ls", "cols", "v", "s"};
  return variant >= 0 && variant < kVariants ? kSuffixes[variant] : "?";
}

bool variant_has_dtype(int variant, int element_bytes) {
  for (const RowConfig& c : kRowConfigs) {
    if (c.variant == variant) return !c.f32_only || element_bytes == 4;
  }
  return true;
}

LaunchPlan plan_rows(long long rows, long long n, int element_bytes, bool aligned, int sm_count) {
  if (rows <= 0 || n <= 0) return {};
  const int per_pack = kPackBytes / element_bytes;
  if (aligned && n % per_pack == 0) {
    const long long packs = n / per_pack;
    // A group of a warp's lanes per row, several rows per block.
    for (const RowConfig& c : kRowConfigs) {
      if (c.lanes > 0 && packs <= (long long)c.lanes * c.packs) {
        const long long rows_per_block = (long long)kGroupThreads / c.lanes * c.rows;
        return {c.variant, grid_for_rows(ceil_div(rows, rows_per_block)), unsigned(kGroupThreads)};
      }
    }
    // A block per row, the fewest packs per thread that fit in a block.
    for (const RowConfig& c : kRowConfigs) {
      if (c.lanes != 0 || !variant_has_dtype(c.variant, element_bytes)) continue;
      const long long threads = std::max<long long>(kMinRowThreads, ceil_div(ceil_div(packs, c.packs), 32) * 32);
      if (threads <= kMaxRowThreads) {
        return {c.variant, grid_for_rows(rows), unsigned(threads)};
      }
    }
    return {kLoopPacks, grid_for(rows, kLoopThreads, sm_count), unsigned(kLoopThreads)};
  }
  return {kLoopElements, grid_for(rows, kLoopThreads, sm_count), unsigned(kLoopThreads)};
}

LaunchPlan plan_columns(long long columns, int sm_count) {
  if (columns <= 0) return {};
  return {kColumns, grid_for(ceil_div(columns, kLoopThreads), kLoopThreads, sm_count),
          unsigned(kLoopThreads)};
}

LaunchPlan plan_elementwise(long long count, int element_bytes, bool aligned, int sm_count) {
  if (count <= 0) return {};
  const int per_pack = aligned ? kPackBytes / element_bytes : 1;
  const long long pieces = std::max(1LL, count / per_pack);
  return {aligned ? kElementwisePacks : kElementwiseElements,
          grid_for(ceil_div(pieces, kElementwiseThreads), kElementwiseThreads, sm_count),
          unsigned(kElementwiseThreads)};
}

}  // namespace omnirt::cuda
