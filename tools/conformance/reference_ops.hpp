// Plain C++ references for the named ops of op set omnirt.nn v1, computed in
// double precision on row-major float data. A backend's kernels are checked
// against these, never against another backend.
#ifndef OMNIRT_CONFORMANCE_REFERENCE_OPS_HPP_
#define OMNIRT_CONFORMANCE_REFERENCE_OPS_HPP_

#include <cstdint>
#include <vector>

namespace omnirt::conformance::reference {

// The op set these references define.
inline constexpr char kOpSet[] = "omnirt.nn";
inline constexpr int32_t kOpSetVersion = 1;

using Shape = std::vector<int64_t>;
using Data = std::vector<float>;

// y = x / sqrt(mean(x^2 over the last dim) + eps) * weight.
Data rms_norm(const Shape& shape, const Data& x, const Data& weight, double eps);
// y = (x - mean) / sqrt(biased var + eps) * weight + bias, over the last dim.
Data layer_norm(const Shape& shape, const Data& x, const Data& weight, const Data& bias,
                double eps);
// y = exp(x - max) / sum(exp(x - max)) along `dim` (negative counts from the end).
Data softmax(const Shape& shape, const Data& x, int64_t dim);
// y = gelu(a) * b elementwise, with the exact (erf) GELU.
Data geglu(const Data& a, const Data& b);

}  // namespace omnirt::conformance::reference

#endif  // OMNIRT_CONFORMANCE_REFERENCE_OPS_HPP_
