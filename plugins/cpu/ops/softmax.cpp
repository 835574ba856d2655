#include <cmath>
#include <limits>

#include "kernels.h"

namespace omnirt::cpu::ops {

void softmax(const OpCall& call) {
  call.check_attrs({"dim"});
  const TensorView x = call.input(0, "x");
  const TensorView y = call.output(0, "y");
  call.require_same_shape(y, x);
  const int64_t dim = call.int_attr("dim", -1);
  if (dim < -x.ndim || dim >= x.ndim) {
    call.fail("attribute dim must be in [" + std::to_string(-x.ndim) + ", " +
              std::to_string(x.ndim - 1) + "] for " + x.name + " of shape " + x.shape_text() +
              ", got " + std::to_string(dim));
  }
  const int axis = static_cast<int>(dim < 0 ? dim + x.ndim : dim);
  const int64_t n = x.shape[axis];
  const int64_t xs = x.strides[axis], ys = y.strides[axis];
  for_each_row<2>({&x, &y}, axis, [&](const std::array<float*, 2>& row) {
    // Subtracting the max keeps exp() from overflowing.
    float max = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < n; ++i) max = std::fmax(max, row[0][i * xs]);
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double e = std::exp(static_cast<double>(row[0][i * xs]) - max);
      row[1][i * ys] = static_cast<float>(e);
      sum += e;
    }
    const double inv_sum = 1.0 / sum;
    for (int64_t i = 0; i < n; ++i) row[1][i * ys] = static_cast<float>(row[1][i * ys] * inv_sum);
  });
}

}  // namespace omnirt::cpu::ops
