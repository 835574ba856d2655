#include <cmath>

#include "kernels.h"

namespace omnirt::cpu::ops {

void layer_norm(const OpCall& call) {
  call.check_attrs({"eps"});
  const double eps = call.non_negative_attr("eps", 1e-5);
  const TensorView x = call.input(0, "x");
  const TensorView w = call.input(1, "weight");
  const TensorView b = call.input(2, "bias");
  const TensorView y = call.output(0, "y");
  call.require_last_dim_vector(w, x);
  call.require_last_dim_vector(b, x);
  call.require_same_shape(y, x);
  const int axis = x.ndim - 1;
  const int64_t n = x.shape[axis];
  const int64_t xs = x.strides[axis], ws = w.strides[0], bs = b.strides[0], ys = y.strides[axis];
  for_each_row<2>({&x, &y}, axis, [&](const std::array<float*, 2>& row) {
    // Two passes: the variance of (x - mean) keeps its precision when the
    // mean is large against the spread.
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += row[0][i * xs];
    const double mean = sum / static_cast<double>(n);
    double sum_sq = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double d = row[0][i * xs] - mean;
      sum_sq += d * d;
    }
    const double inv_std = 1.0 / std::sqrt(sum_sq / static_cast<double>(n) + eps);
    for (int64_t i = 0; i < n; ++i) {
      row[1][i * ys] =
          static_cast<float>((row[0][i * xs] - mean) * inv_std * w.data[i * ws] + b.data[i * bs]);
    }
  });
}

}  // namespace omnirt::cpu::ops
