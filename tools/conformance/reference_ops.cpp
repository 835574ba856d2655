#include "reference_ops.hpp"

#include <algorithm>
#include <cmath>

namespace omnirt::conformance::reference {
namespace {

// Calls row(offset, stride, n) for every 1-D slice of `shape` along `dim`.
template <class Row>
void for_each_slice(const Shape& shape, int64_t dim, Row&& row) {
  const auto d = static_cast<size_t>(dim < 0 ? dim + static_cast<int64_t>(shape.size()) : dim);
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < d; ++i) outer *= shape[i];
  for (size_t i = d + 1; i < shape.size(); ++i) inner *= shape[i];
  const int64_t n = shape[d];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) row(o * n * inner + i, inner, n);
  }
}

}  // namespace

Data rms_norm(const Shape& shape, const Data& x, const Data& weight, double eps) {
  Data y(x.size());
  for_each_slice(shape, -1, [&](int64_t at, int64_t, int64_t n) {
    double squares = 0;
    for (int64_t i = 0; i < n; ++i) squares += double{x[at + i]} * x[at + i];
    const double scale = 1.0 / std::sqrt(squares / n + eps);
    for (int64_t i = 0; i < n; ++i) y[at + i] = static_cast<float>(x[at + i] * scale * weight[i]);
  });
  return y;
}

Data layer_norm(const Shape& shape, const Data& x, const Data& weight, const Data& bias,
                double eps) {
  Data y(x.size());
  for_each_slice(shape, -1, [&](int64_t at, int64_t, int64_t n) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < n; ++i) mean += x[at + i];
    mean /= n;
    for (int64_t i = 0; i < n; ++i) var += (x[at + i] - mean) * (x[at + i] - mean);
    const double scale = 1.0 / std::sqrt(var / n + eps);
    for (int64_t i = 0; i < n; ++i) {
      y[at + i] = static_cast<float>((x[at + i] - mean) * scale * weight[i] + bias[i]);
    }
  });
  return y;
}

Data softmax(const Shape& shape, const Data& x, int64_t dim) {
  Data y(x.size());
  for_each_slice(shape, dim, [&](int64_t at, int64_t stride, int64_t n) {
    double top = x[at];
    for (int64_t i = 1; i < n; ++i) top = std::max(top, double{x[at + i * stride]});
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += std::exp(x[at + i * stride] - top);
    for (int64_t i = 0; i < n; ++i) {
      y[at + i * stride] = static_cast<float>(std::exp(x[at + i * stride] - top) / sum);
    }
  });
  return y;
}

Data geglu(const Data& a, const Data& b) {
  Data y(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const double v = a[i];
    y[i] = static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))) * b[i]);
  }
  return y;
}

}  // namespace omnirt::conformance::reference
