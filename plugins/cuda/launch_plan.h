// Which kernel of a named op runs a call, and with what grid: the choice
// between the register configurations of kernels/row_configs.h, the loop
// kernels, the column and shared-memory softmax and the two geglu kernels,
// made from the op, the shape, the element size, the alignment and the GPU's
// SM count. No CUDA here: the
// plan is unit-tested on the CPU (tests/cuda/launch_plan_test.cpp).
#ifndef OMNIRT_PLUGINS_CUDA_LAUNCH_PLAN_H_
#define OMNIRT_PLUGINS_CUDA_LAUNCH_PLAN_H_

#include "kernels/row_configs.h"

namespace omnirt::cuda {

/// Kernel variants; a kernel is named omnirt_<op>_<dtype>_<variant_suffix>.
enum Variant : int {
#define OMNIRT_ROW_VARIANT(list, suffix, lanes, packs, rows) kRow_##suffix,
  OMNIRT_ROW_CONFIG_LISTS(OMNIRT_ROW_VARIANT)
#undef OMNIRT_ROW_VARIANT
  kLoopPacks,            // "lv": a block per row, 16-byte packs
  kLoopElements,         // "ls": a block per row, one element at a time
  kColumns,              // "cols": softmax over another dimension than the last
  kSharedRow,            // "sh": softmax and layer_norm, a block per row kept in shared memory
  kElementwisePacks,     // "v": geglu in 16-byte packs
  kElementwiseElements,  // "s": geglu one element at a time
  kVariants
};

/// The row ops: softmax runs neither the packed configurations nor, for its
/// long 16-bit rows, the loop kernels where "sh" holds the row; layer_norm
/// runs "sh" where b4 would hold its 16-bit rows in kPreferredRowThreads;
/// only layer_norm runs g16r4 and w1r2, only rms_norm w1r1 and only softmax
/// g16p2, softmax not the wide one (row_configs.h).
enum class RowOp { kRmsNorm, kLayerNorm, kSoftmax };

/// Variants of the row ops (rms_norm, layer_norm, softmax along the last dimension).
constexpr int kRowVariants = kLoopElements + 1;

const char* variant_suffix(int variant);

/// Is there a kernel of `variant` for elements of `element_bytes` (some
/// register configurations exist for f32 only, others for f16/bf16 only)?
bool variant_has_dtype(int variant, int element_bytes);

struct LaunchPlan {
  int variant = kLoopElements;
  unsigned grid = 0;          // 0 when there is nothing to do
  unsigned block = 0;         // threads, a multiple of 32
  unsigned shared_bytes = 0;  // dynamic shared memory ("sh": the row)
};

/// Row op `op` over `rows` contiguous rows of `n` elements of `element_bytes`
/// each. `aligned`: every tensor of the call starts 16-byte aligned; rows then
/// do too when n * element_bytes is a multiple of 16, which this checks.
LaunchPlan plan_rows(RowOp op, long long rows, long long n, int element_bytes, bool aligned,
                     int sm_count);

/// softmax over a dimension that is not the last, `columns` strided rows.
LaunchPlan plan_columns(long long columns, int sm_count);

/// geglu over `count` elements; `aligned`: a, b and y start 16-byte aligned.
/// A block for every kElementwiseThreads x kGegluPacks pieces.
LaunchPlan plan_elementwise(long long count, int element_bytes, bool aligned);

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_LAUNCH_PLAN_H_
