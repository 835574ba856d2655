// The cpu plugin's named-op kernels through op_run against libtorch on random
// inputs, contiguous and strided, in several shapes. The kernels accumulate
// in double, libtorch in float: rtol 1e-5, atol 1e-6.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "engine_test_support.h"
#include "torch_dl.h"

namespace omnirt::engine_testing {
namespace {

constexpr double kRtol = 1e-5;
constexpr double kAtol = 1e-6;

// A random tensor of `shape`, laid out with its last two dimensions swapped
// in memory when `strided` (so its last dimension is not contiguous).
at::Tensor random(std::vector<int64_t> shape, bool strided) {
  if (!strided || shape.size() < 2) return at::randn(shape);
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  return at::randn(shape).transpose(-1, -2);
}

class OpsVsLibtorch : public ::testing::TestWithParam<bool> {
 protected:
  // Runs `op` writing into a fresh output laid out like inputs[0].
  at::Tensor run(const char* op, const std::vector<at::Tensor>& inputs,
                 std::vector<omnirt_op_attr> attrs = {}) {
    at::Tensor out = at::empty_like(inputs[0]);
    std::vector<DLTensor> in;
    for (const at::Tensor& t : inputs) in.push_back(dl(t));
    DLTensor o = dl(out);
    EXPECT_EQ(cpu_.v().op_run(cpu_.s(), op, in.data(), in.size(), &o, 1, attrs.data(),
                              attrs.size(), nullptr),
              OMNIRT_STATUS_OK)
        << last_error().message;
    return out;
  }
  bool strided() const { return GetParam(); }

  CpuInstance cpu_;
};

const std::vector<std::vector<int64_t>> kShapes = {{7}, {3, 5}, {2, 3, 64}, {4, 1000}};

TEST_P(OpsVsLibtorch, RmsNorm) {
  at::manual_seed(10);
  for (const auto& shape : kShapes) {
    const at::Tensor x = random(shape, strided());
    const at::Tensor w = at::randn({shape.back()});
    for (double eps : {1e-6, 1e-2}) {
      // libtorch 1.13 has no rms_norm: its definition in tensor ops.
      const at::Tensor expected = x * at::rsqrt(x.pow(2).mean(-1, true) + eps) * w;
      const at::Tensor got =
          eps == 1e-6 ? run("rms_norm", {x, w}) : run("rms_norm", {x, w}, {{"eps", eps}});
      EXPECT_TRUE(at::allclose(got, expected, kRtol, kAtol)) << at::IntArrayRef(shape);
    }
  }
}

TEST_P(OpsVsLibtorch, LayerNorm) {
  at::manual_seed(11);
  for (const auto& shape : kShapes) {
    const at::Tensor x = random(shape, strided()) * 3 + 1;
    const at::Tensor w = at::randn({shape.back()});
    const at::Tensor b = at::randn({shape.back()});
    EXPECT_TRUE(at::allclose(run("layer_norm", {x, w, b}),
                             at::layer_norm(x, {shape.back()}, w, b, 1e-5), kRtol, kAtol))
        << at::IntArrayRef(shape);
    EXPECT_TRUE(at::allclose(run("layer_norm", {x, w, b}, {{"eps", 0.1}}),
                             at::layer_norm(x, {shape.back()}, w, b, 0.1), kRtol, kAtol))
        << at::IntArrayRef(shape);
  }
}

TEST_P(OpsVsLibtorch, SoftmaxAlongEveryDim) {
  at::manual_seed(12);
  for (const auto& shape : kShapes) {
    const at::Tensor x = random(shape, strided()) * 4;
    EXPECT_TRUE(at::allclose(run("softmax", {x}), at::softmax(x, -1), kRtol, kAtol));
    for (int64_t dim = 0; dim < static_cast<int64_t>(shape.size()); ++dim) {
      EXPECT_TRUE(at::allclose(run("softmax", {x}, {{"dim", static_cast<double>(dim)}}),
                               at::softmax(x, dim), kRtol, kAtol))
          << at::IntArrayRef(shape) << " dim " << dim;
    }
  }
}

TEST_P(OpsVsLibtorch, GegluIsLibtorchsDefaultGeluTimesGate) {
  at::manual_seed(13);
  for (const auto& shape : kShapes) {
    const at::Tensor a = random(shape, strided()) * 3;
    const at::Tensor b = random(shape, strided());
    EXPECT_TRUE(at::allclose(run("geglu", {a, b}), at::gelu(a) * b, kRtol, kAtol))
        << at::IntArrayRef(shape);
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, OpsVsLibtorch, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "Strided" : "Contiguous";
                         });

}  // namespace
}  // namespace omnirt::engine_testing
