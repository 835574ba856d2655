#include "launch_plan.h"

#include <algorithm>
#include <limits>

namespace omnirt::cuda {
namespace {

using namespace kernels;

constexpr int kThreadsPerSm = 2048;  // resident threads per SM on sm_80 and sm_90

// Which ops a register configuration serves, and when.
enum class Use {
  kEveryOp,
  kNorms,          // held packed (row_configs.h): not softmax
  kNormsWide,      // the norms' f32 rows no other holds in kPreferredRowThreads
  kLayerNorm,      // layer_norm alone, before a configuration of every op that holds as much
  kRmsNorm,        // rms_norm alone, likewise
  kSoftmax,        // softmax alone, likewise
};

// Which ops a list's configurations serve, and when.
constexpr Use use_of(RowConfigList list) {
  switch (list) {
    case RowConfigList::WIDE_F32: return Use::kNormsWide;
    case RowConfigList::PACKED: return Use::kNorms;
    case RowConfigList::LAYER_NORM_16:
    case RowConfigList::SHORT_LAYER_NORM_F32: return Use::kLayerNorm;
    case RowConfigList::SHORT_F32:
    case RowConfigList::RMS_NORM_16: return Use::kRmsNorm;
    case RowConfigList::SHORT_SOFTMAX_F32: return Use::kSoftmax;
    default: return Use::kEveryOp;
  }
}

struct RowConfig {
  int variant, lanes, packs, rows;
  RowConfigList list;  // row_configs.h's: what it serves follows from it
  constexpr Use use() const { return use_of(list); }
};
// In the order the planner tries them: fewest packs per thread first.
constexpr RowConfig kRowConfigs[] = {
#define OMNIRT_ROW_CONFIG(list, suffix, lanes, packs, rows) \
  {kRow_##suffix, lanes, packs, rows, RowConfigList::list},
    OMNIRT_ROW_CONFIG_LISTS(OMNIRT_ROW_CONFIG)
#undef OMNIRT_ROW_CONFIG
};

const RowConfig* config_of(int variant) {
  for (const RowConfig& c : kRowConfigs) {
    if (c.variant == variant) return &c;
  }
  return nullptr;
}

// Does `op` over elements of `element_bytes` run `c` in the planner's
// ordinary choice (kNormsWide is its fallback alone)?
bool runs(const RowConfig& c, RowOp op, int element_bytes) {
  if (!row_list_has_dtype(c.list, element_bytes)) return false;
  switch (c.use()) {
    case Use::kEveryOp: return true;
    case Use::kNorms: return op != RowOp::kSoftmax;
    case Use::kLayerNorm: return op == RowOp::kLayerNorm;
    case Use::kRmsNorm: return op == RowOp::kRmsNorm;
    case Use::kSoftmax: return op == RowOp::kSoftmax;
    case Use::kNormsWide: return false;
  }
  return false;
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// Enough blocks of `threads` to fill every SM, or fewer when there is less
// work: the kernels walk their work in grid-stride loops.
unsigned grid_for(long long blocks_of_work, int threads, int sm_count) {
  const long long resident = (long long)std::max(sm_count, 1) * std::max(1, kThreadsPerSm / threads);
  return unsigned(std::max(1LL, std::min(blocks_of_work, resident)));
}

// A block for each step of work (of rows; of geglu's pieces), up to the
// largest grid: the H100 sweep (cuda_kernel_bench --sweep, docs/cuda.md)
// measured the row kernels 2-13% faster launched so than with a grid that
// only fills the SMs and walks the rest in grid-stride loops, in all but the
// vocabulary-row layer_norm and rms_norm f32 cases (within 5%); the H200's,
// geglu 6-15% (blocks that retire and start apart keep loads in flight while
// others compute).
unsigned grid_for_work(long long blocks_of_work) {
  constexpr long long kMaxGridX = 0x7fffffff;
  return unsigned(std::max(1LL, std::min(blocks_of_work, kMaxGridX)));
}

// A block per row of `c` (lanes 0): the fewest whole warps whose packs hold
// the row, at least kMinRowThreads; nothing (grid 0) above `most` threads.
LaunchPlan block_per_row(const RowConfig& c, long long rows, long long packs, int most) {
  const long long threads = std::max<long long>(kMinRowThreads, ceil_div(ceil_div(packs, c.packs), 32) * 32);
  if (threads > most) return {};
  return {c.variant, grid_for_work(rows), unsigned(threads)};
}

// A block per row of the fewest packs a thread (at most `most_packs`), among
// the whole-block configurations `op` runs (use kEveryOp; one of the op's
// own before one of every op's of as many packs) or the wide ones (use
// kNormsWide), that holds the row in at most `most` threads; nothing
// (grid 0) when none does.
LaunchPlan fewest_packs(Use use, RowOp op, int element_bytes, long long rows, long long packs, int most,
                        int most_packs = std::numeric_limits<int>::max()) {
  const RowConfig* best = nullptr;
  LaunchPlan plan;
  for (const RowConfig& c : kRowConfigs) {
    const bool taken = use == Use::kNormsWide ? c.use() == use && row_list_has_dtype(c.list, element_bytes)
                                                  : runs(c, op, element_bytes);
    if (c.lanes != 0 || !taken || c.packs > most_packs) continue;
    if (best != nullptr && (c.packs > best->packs || (c.packs == best->packs && c.use() == Use::kEveryOp))) continue;
    const LaunchPlan fits = block_per_row(c, rows, packs, most);
    if (fits.grid == 0) continue;
    best = &c;
    plan = fits;
  }
  return plan;
}

}  // namespace

const char* variant_suffix(int variant) {
  static const char* const kSuffixes[kVariants] = {
#define OMNIRT_ROW_SUFFIX(list, suffix, lanes, packs, rows) #suffix,
      OMNIRT_ROW_CONFIG_LISTS(OMNIRT_ROW_SUFFIX)
#undef OMNIRT_ROW_SUFFIX
      "lv", "ls", "cols", "sh", "v", "s"};
  return variant >= 0 && variant < kVariants ? kSuffixes[variant] : "?";
}

bool variant_has_dtype(int variant, int element_bytes) {
  const RowConfig* c = config_of(variant);
  return c == nullptr || row_list_has_dtype(c->list, element_bytes);
}

LaunchPlan plan_rows(RowOp op, long long rows, long long n, int element_bytes, bool aligned,
                     int sm_count) {
  if (rows <= 0 || n <= 0) return {};
  const int per_pack = kPackBytes / element_bytes;
  if (!aligned || n % per_pack != 0) {
    return {kLoopElements, grid_for(rows, kLoopThreads, sm_count), unsigned(kLoopThreads)};
  }
  const long long packs = n / per_pack;
  // A group of a warp's lanes per row, several rows per block: the group
  // configuration of the fewest packs a group that holds the row (one of the
  // op's own before one of every op's that holds as many).
  const RowConfig* group = nullptr;
  for (const RowConfig& c : kRowConfigs) {
    const long long held = (long long)c.lanes * c.packs;
    if (c.lanes == 0 || !runs(c, op, element_bytes) || packs > held) continue;
    const long long best = group == nullptr ? 0 : (long long)group->lanes * group->packs;
    if (group == nullptr || held < best || (held == best && c.use() != Use::kEveryOp)) group = &c;
  }
  if (group != nullptr) {
    const int threads = group_threads(group->list);
    const long long rows_per_block = (long long)threads / group->lanes * group->rows;
    return {group->variant, grid_for_work(ceil_div(rows, rows_per_block)), unsigned(threads)};
  }
  // A block per row: for the f32 norms, kF32NormPacks a thread in at most
  // kMaxRowThreads; else the fewest packs a thread that hold the row in at
  // most kPreferredRowThreads (b4 in 16-bit layer_norm: "sh"); else the
  // norms' wide configuration; else the fewest in at most kMaxRowThreads
  // (row_configs.h).
  LaunchPlan plan;
  if (element_bytes == 4 && op != RowOp::kSoftmax) {
    plan = fewest_packs(Use::kEveryOp, op, element_bytes, rows, packs, kMaxRowThreads, kF32NormPacks);
  }
  if (plan.grid == 0) {
    plan = fewest_packs(Use::kEveryOp, op, element_bytes, rows, packs, kPreferredRowThreads);
    // layer_norm's 16-bit rows there run "sh" in b4's blocks, the row in
    // shared memory (shared_row_layer_norm.cuh).
    if (op == RowOp::kLayerNorm && element_bytes == 2 && plan.variant == kRow_b4) {
      plan.variant = kSharedRow;
      plan.shared_bytes = unsigned(n * element_bytes);
    }
  }
  if (plan.grid == 0 && op != RowOp::kSoftmax) {
    plan = fewest_packs(Use::kNormsWide, op, element_bytes, rows, packs, kWideRowThreads);
    // layer_norm's on a grid that fills the SMs, each block walking rows:
    // 2-7% faster so than a block a row on the H200 (4096 x 32000, --sweep),
    // where rms_norm's ran 5% slower.
    if (plan.grid > 0 && op == RowOp::kLayerNorm) plan.grid = grid_for(rows, int(plan.block), sm_count);
  }
  if (plan.grid == 0) plan = fewest_packs(Use::kEveryOp, op, element_bytes, rows, packs, kMaxRowThreads);
  if (plan.grid > 0) return plan;
  const long long row_bytes = n * element_bytes;
  if (op == RowOp::kSoftmax && element_bytes == 2 && row_bytes <= kSharedRowBytes) {
    return {kSharedRow, grid_for_work(rows), unsigned(kSharedRowThreads), unsigned(row_bytes)};
  }
  return {kLoopPacks, grid_for(rows, kLoopThreads, sm_count), unsigned(kLoopThreads)};
}

LaunchPlan plan_columns(long long columns, int sm_count) {
  if (columns <= 0) return {};
  return {kColumns, grid_for(ceil_div(columns, kLoopThreads), kLoopThreads, sm_count),
          unsigned(kLoopThreads)};
}

LaunchPlan plan_elementwise(long long count, int element_bytes, bool aligned) {
  if (count <= 0) return {};
  const int per_pack = aligned ? kPackBytes / element_bytes : 1;
  const long long pieces = std::max(1LL, count / per_pack);
  return {aligned ? kElementwisePacks : kElementwiseElements,
          grid_for_work(ceil_div(pieces, (long long)kElementwiseThreads * kGegluPacks)),
          unsigned(kElementwiseThreads)};
}

}  // namespace omnirt::cuda
