// Inputs for collective tests whose every result is exact in every dtype
// (small integers, sums and products that fit an i8 and a bf16, averages over
// 2 or 4 ranks that are multiples of 1/4), and the reference each rank checks
// its output against, computed from the inputs of all ranks.
#ifndef OMNIRT_TESTS_COLLECTIVES_SUPPORT_COLLECTIVE_VALUES_H_
#define OMNIRT_TESTS_COLLECTIVES_SUPPORT_COLLECTIVE_VALUES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "omnirt/types.h"
#include "omnirt_plugin_common/collectives.h"

namespace omnirt_test {

// Bytes per element, and the names messages use: the plugins' own.
using omnirt::plugin_common::dtype_name;
using omnirt::plugin_common::dtype_size;
using omnirt::plugin_common::reduce_op_name;

/// Every dtype, and every reduction meaningful for `dtype` (no avg of bool).
std::vector<int32_t> all_dtypes();
std::vector<int32_t> reductions_of(int32_t dtype);

/// Element i of `rank`'s input to a reduction `op` (or, with op < 0, to a
/// collective that only moves data), as an exact double.
double input_value(int32_t dtype, int32_t op, int rank, size_t i);
/// op over ranks 0..nranks-1 of input_value(dtype, op, rank, i).
double reduced_value(int32_t dtype, int32_t op, int nranks, size_t i);

/// `count` elements of `rank`'s input, elements first..first+count-1.
std::vector<uint8_t> make_input(int32_t dtype, int32_t op, int rank, size_t count, size_t first = 0);
/// "" when the `count` elements at `data` equal expected(i), else the first
/// difference, prefixed with `what`.
std::string check_elements(int32_t dtype, const void* data, size_t count,
                           const std::function<double(size_t)>& expected, const std::string& what);

}  // namespace omnirt_test

#endif  // OMNIRT_TESTS_COLLECTIVES_SUPPORT_COLLECTIVE_VALUES_H_
