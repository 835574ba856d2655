// The named-op cases that the GPU checks (cuda_torch_test) and times
// (cuda_kernel_bench) against ATen: every op of omnirt.nn v1 in every dtype
// on shapes of each class, the ATen computation each is compared with, and
// the tolerance of the comparison.
#ifndef OMNIRT_TESTS_CUDA_OP_CASES_H_
#define OMNIRT_TESTS_CUDA_OP_CASES_H_

#include <torch/torch.h>

#include <string>
#include <vector>

#include "omnirt/types.h"

namespace omnirt::cuda_test {

struct OpCase {
  std::string op;           // "rms_norm", "layer_norm", "softmax" or "geglu"
  std::string shape_class;  // "few long rows", ...
  std::vector<int64_t> shape;
  at::ScalarType dtype;
};

inline const char* dtype_name(at::ScalarType t) {
  return t == at::kFloat ? "f32" : t == at::kHalf ? "f16" : "bf16";
}

// Row ops over rows × n; geglu elementwise over the same element counts.
// ≥ 64 MiB per f32 tensor: 16384x8192, 524288x128, 32768x2048, 4096x32000.
inline std::vector<OpCase> op_cases() {
  const std::vector<std::pair<std::string, std::vector<int64_t>>> shapes = {
      {"few long rows", {4096, 4096}},     {"few long rows", {16384, 8192}},
      {"many short rows", {65536, 128}},   {"many short rows", {524288, 128}},
      {"many long rows", {32768, 2048}},   {"vocabulary rows", {4096, 32000}},
  };
  std::vector<OpCase> cases;
  for (const char* op : {"rms_norm", "layer_norm", "softmax", "geglu"}) {
    for (at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
      for (const auto& [shape_class, shape] : shapes) cases.push_back({op, shape_class, shape, dtype});
    }
  }
  return cases;
}

// Fresh random inputs of `op` for x of `shape`: x (and geglu's b) of scale
// 3, weight and bias of the last dimension.
inline std::vector<at::Tensor> op_inputs(const std::string& op, const std::vector<int64_t>& shape,
                                         const at::TensorOptions& options) {
  const int64_t n = shape.back();
  std::vector<at::Tensor> inputs = {torch::randn(shape, options) * 3};
  if (op == "geglu") inputs.push_back(torch::randn(shape, options));
  if (op == "rms_norm" || op == "layer_norm") inputs.push_back(torch::randn({n}, options));
  if (op == "layer_norm") inputs.push_back(torch::randn({n}, options));
  return inputs;
}

// ATen's result of `op` with the attributes an OmniRT call gets (eps for the
// norms, dim for softmax; absent: the op's default).
inline at::Tensor aten_op(const std::string& op, const std::vector<at::Tensor>& in,
                          const std::vector<omnirt_op_attr>& attrs = {}) {
  auto attr = [&](const char* name, double fallback) {
    for (const omnirt_op_attr& a : attrs) {
      if (std::string(a.name) == name) return a.value;
    }
    return fallback;
  };
  const int64_t n = in[0].size(-1);
  if (op == "rms_norm") return at::rms_norm(in[0], {n}, in[1], attr("eps", 1e-6));
  if (op == "layer_norm") return at::layer_norm(in[0], {n}, in[1], in[2], attr("eps", 1e-5));
  if (op == "softmax") return at::softmax(in[0], int64_t(attr("dim", -1)));
  if (op == "geglu") return at::gelu(in[0]) * in[1];
  throw std::invalid_argument("no ATen reference for op " + op);
}

// How close OmniRT's result must be to ATen's, absolute and relative.
inline double op_tolerance(at::ScalarType t) {
  return t == at::kFloat ? 2e-5 : t == at::kHalf ? 1e-2 : 4e-2;
}

}  // namespace omnirt::cuda_test

#endif  // OMNIRT_TESTS_CUDA_OP_CASES_H_
