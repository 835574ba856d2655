#include <cmath>

#include "kernels.h"

namespace omnirt::cpu::ops {

void geglu(const OpCall& call) {
  call.check_attrs({});
  const TensorView a = call.input(0, "a");
  const TensorView b = call.input(1, "b");
  const TensorView y = call.output(0, "y");
  call.require_same_shape(b, a);
  call.require_same_shape(y, a);
  const int axis = a.ndim - 1;
  const int64_t n = a.shape[axis];
  const int64_t as = a.strides[axis], bs = b.strides[axis], ys = y.strides[axis];
  for_each_row<3>({&a, &b, &y}, axis, [&](const std::array<float*, 3>& row) {
    for (int64_t i = 0; i < n; ++i) {
      const double v = row[0][i * as];
      const double gelu = 0.5 * v * (1.0 + std::erf(v * M_SQRT1_2));
      row[2][i * ys] = static_cast<float>(gelu * row[1][i * bs]);
    }
  });
}

}  // namespace omnirt::cpu::ops
