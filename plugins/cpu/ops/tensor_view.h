// A strided f32 host tensor as the reference kernels walk it.
#ifndef OMNIRT_CPU_OPS_TENSOR_VIEW_H_
#define OMNIRT_CPU_OPS_TENSOR_VIEW_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace omnirt::cpu::ops {

// Upper bound on tensor rank the kernels accept (libtorch's too).
constexpr int kMaxDims = 64;

struct TensorView {
  float* data = nullptr;
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};  // in elements
  std::string name;                // "input 0 (x)", for messages

  std::string shape_text() const;
};

// Calls fn(rows) once per 1-D row along `axis` of N tensors of one shape,
// rows[k] pointing at the row's first element in tensor k. Any strides.
template <size_t N, class F>
void for_each_row(const std::array<const TensorView*, N>& tensors, int axis, F&& fn) {
  const TensorView& first = *tensors[0];
  int64_t count = 1;
  for (int d = 0; d < first.ndim; ++d) {
    if (d != axis) count *= first.shape[d];
  }
  std::array<float*, N> rows;
  for (size_t k = 0; k < N; ++k) rows[k] = tensors[k]->data;
  int64_t index[kMaxDims] = {};
  for (int64_t r = 0; r < count; ++r) {
    fn(rows);
    // Odometer over every dimension but `axis`, last fastest.
    for (int d = first.ndim - 1; d >= 0; --d) {
      if (d == axis) continue;
      if (++index[d] < first.shape[d]) {
        for (size_t k = 0; k < N; ++k) rows[k] += tensors[k]->strides[d];
        break;
      }
      index[d] = 0;
      for (size_t k = 0; k < N; ++k) rows[k] -= tensors[k]->strides[d] * (first.shape[d] - 1);
    }
  }
}

}  // namespace omnirt::cpu::ops

#endif  // OMNIRT_CPU_OPS_TENSOR_VIEW_H_
