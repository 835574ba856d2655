// The cpu plugin's named ops through op_run, without libtorch: what they
// declare, hand-checked values, strided and in-place calls, and the error for
// every kind of bad call. ops_reference_test.cpp checks them against libtorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "engine_test_support.h"

namespace omnirt::engine_testing {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

class OpsTest : public ::testing::Test {
 protected:
  omnirt_status run(const char* op, std::vector<DLTensor> in, std::vector<DLTensor> out,
                    std::vector<omnirt_op_attr> attrs = {}) {
    return cpu_.v().op_run(cpu_.s(), op, in.data(), in.size(), out.data(), out.size(),
                           attrs.data(), attrs.size(), nullptr);
  }
  // Runs `op` and expects INVALID_ARGUMENT with `fragment` in the message.
  void expect_invalid(const char* op, std::vector<DLTensor> in, std::vector<DLTensor> out,
                      const std::string& fragment, std::vector<omnirt_op_attr> attrs = {}) {
    EXPECT_EQ(run(op, std::move(in), std::move(out), std::move(attrs)),
              OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_THAT(last_error().message, HasSubstr(fragment));
  }

  CpuInstance cpu_;
};

HostTensor tensor(std::vector<int64_t> shape, std::vector<float> data) {
  return {std::move(data), std::move(shape), {}};
}

HostTensor zeros(std::vector<int64_t> shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return {std::vector<float>(n, 0.0f), std::move(shape), {}};
}

// The transpose of a compact [cols, rows] buffer: a [rows, cols] view whose
// last dimension is strided.
HostTensor transposed(const HostTensor& compact) {
  const int64_t rows = compact.shape[0], cols = compact.shape[1];
  HostTensor t{std::vector<float>(compact.data.size()), {rows, cols}, {1, rows}};
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) t.data[c * rows + r] = compact.data[r * cols + c];
  }
  return t;
}

// The values of a [rows, cols] view in row-major order.
std::vector<float> values(const HostTensor& t) {
  if (t.strides.empty()) return t.data;
  std::vector<float> out;
  for (int64_t r = 0; r < t.shape[0]; ++r) {
    for (int64_t c = 0; c < t.shape[1]; ++c) out.push_back(t.data[r * t.strides[0] + c * t.strides[1]]);
  }
  return out;
}

TEST_F(OpsTest, DeclaresOpSetOmnirtNnV1WithFourOps) {
  EXPECT_NE(cpu_.capabilities().features & OMNIRT_FEATURE_NAMED_OPS, 0u);
  const omnirt_op_set* sets = nullptr;
  size_t num_sets = 0;
  ASSERT_EQ(cpu_.v().list_op_sets(cpu_.s(), &sets, &num_sets), OMNIRT_STATUS_OK);
  ASSERT_EQ(num_sets, 1u);
  EXPECT_STREQ(sets[0].name, "omnirt.nn");
  EXPECT_EQ(sets[0].version, 1);

  const omnirt_op_decl* ops = nullptr;
  size_t num_ops = 0;
  ASSERT_EQ(cpu_.v().list_ops(cpu_.s(), &ops, &num_ops), OMNIRT_STATUS_OK);
  std::set<std::string> declared;
  for (size_t i = 0; i < num_ops; ++i) {
    EXPECT_STREQ(ops[i].op_set, "omnirt.nn");
    EXPECT_EQ(ops[i].num_outputs, 1);
    declared.insert(ops[i].name + std::string("/") + std::to_string(ops[i].num_inputs));
  }
  EXPECT_EQ(declared, (std::set<std::string>{"geglu/2", "layer_norm/3", "rms_norm/2", "softmax/1"}));
}

TEST_F(OpsTest, UnknownOpIsNotFoundNamingBackendAndOp) {
  HostTensor x = tensor({1}, {1});
  EXPECT_EQ(run("flash_attention", {x.dl()}, {x.dl()}), OMNIRT_STATUS_NOT_FOUND);
  EXPECT_THAT(last_error().message, HasSubstr("backend 'cpu' has no op 'flash_attention'"));
  EXPECT_THAT(last_error().message, HasSubstr("rms_norm"));
}

TEST_F(OpsTest, RmsNormOfAConstantRowIsTheWeight) {
  HostTensor x = tensor({2, 4}, {2, 2, 2, 2, -3, -3, -3, -3});
  HostTensor w = tensor({4}, {1, 2, 3, 4});
  HostTensor y = zeros({2, 4});
  ASSERT_EQ(run("rms_norm", {x.dl(), w.dl()}, {y.dl()}, {{"eps", 0.0}}), OMNIRT_STATUS_OK)
      << last_error().message;
  EXPECT_THAT(y.data, Pointwise(FloatNear(1e-6f), std::vector<float>{1, 2, 3, 4, -1, -2, -3, -4}));
}

TEST_F(OpsTest, LayerNormCentresScalesAndShifts) {
  HostTensor x = tensor({1, 2}, {1, 3});  // mean 2, biased variance 1
  HostTensor w = tensor({2}, {1, 2});
  HostTensor b = tensor({2}, {0, 10});
  HostTensor y = zeros({1, 2});
  ASSERT_EQ(run("layer_norm", {x.dl(), w.dl(), b.dl()}, {y.dl()}, {{"eps", 0.0}}),
            OMNIRT_STATUS_OK)
      << last_error().message;
  EXPECT_THAT(y.data, ElementsAre(FloatNear(-1, 1e-6f), FloatNear(12, 1e-6f)));
}

TEST_F(OpsTest, SoftmaxNormalisesAlongTheChosenDim) {
  const float ln3 = std::log(3.0f);
  HostTensor x = tensor({2, 2}, {0, ln3, ln3, 0});
  HostTensor last = zeros({2, 2}), first = zeros({2, 2});
  ASSERT_EQ(run("softmax", {x.dl()}, {last.dl()}), OMNIRT_STATUS_OK);
  EXPECT_THAT(last.data, Pointwise(FloatNear(1e-6f), std::vector<float>{0.25, 0.75, 0.75, 0.25}));
  ASSERT_EQ(run("softmax", {x.dl()}, {first.dl()}, {{"dim", 0}}), OMNIRT_STATUS_OK);
  EXPECT_THAT(first.data, Pointwise(FloatNear(1e-6f), std::vector<float>{0.25, 0.75, 0.75, 0.25}));
  HostTensor big = tensor({1, 2}, {1000, 1000});  // exp(1000) overflows unless shifted
  HostTensor out = zeros({1, 2});
  ASSERT_EQ(run("softmax", {big.dl()}, {out.dl()}), OMNIRT_STATUS_OK);
  EXPECT_THAT(out.data, ElementsAre(FloatNear(0.5, 1e-6f), FloatNear(0.5, 1e-6f)));
}

TEST_F(OpsTest, GegluIsExactErfGeluTimesGate) {
  HostTensor a = tensor({3}, {0, 1, -1});
  HostTensor b = tensor({3}, {5, 2, 2});
  HostTensor y = zeros({3});
  ASSERT_EQ(run("geglu", {a.dl(), b.dl()}, {y.dl()}), OMNIRT_STATUS_OK);
  // erf GELU: gelu(1) = 0.8413447; the tanh approximation would give 0.8411920.
  EXPECT_THAT(y.data, ElementsAre(FloatNear(0, 1e-7f), FloatNear(2 * 0.8413447f, 1e-6f),
                                  FloatNear(2 * -0.1586553f, 1e-6f)));
}

TEST_F(OpsTest, StridedTensorsGiveTheContiguousResult) {
  const HostTensor x = tensor({3, 4}, {0.5f, -1, 2, 3, 1, 1, -2, 0, 4, -4, 0.25f, 8});
  const HostTensor g = tensor({3, 4}, {1, 2, 3, 4, -1, -2, -3, -4, 0.5f, 0.5f, 0.5f, 0.5f});
  HostTensor w = tensor({4}, {1, -1, 0.5f, 2});
  HostTensor b = tensor({4}, {0, 1, 2, 3});
  struct Case {
    const char* op;
    std::vector<omnirt_op_attr> attrs;
  };
  for (const Case& c : {Case{"rms_norm", {}}, Case{"layer_norm", {}}, Case{"softmax", {}},
                        Case{"softmax", {{"dim", 0}}}, Case{"geglu", {}}}) {
    SCOPED_TRACE(c.op);
    HostTensor cx = x, cg = g, sx = transposed(x), sg = transposed(g);
    HostTensor cy = zeros({3, 4}), sy = transposed(zeros({3, 4}));
    auto inputs = [&](HostTensor& first, HostTensor& gate) {
      const std::string op = c.op;
      if (op == "rms_norm") return std::vector<DLTensor>{first.dl(), w.dl()};
      if (op == "layer_norm") return std::vector<DLTensor>{first.dl(), w.dl(), b.dl()};
      if (op == "geglu") return std::vector<DLTensor>{first.dl(), gate.dl()};
      return std::vector<DLTensor>{first.dl()};
    };
    ASSERT_EQ(run(c.op, inputs(cx, cg), {cy.dl()}, c.attrs), OMNIRT_STATUS_OK);
    ASSERT_EQ(run(c.op, inputs(sx, sg), {sy.dl()}, c.attrs), OMNIRT_STATUS_OK);
    EXPECT_EQ(values(sy), cy.data);
  }
}

TEST_F(OpsTest, InPlaceCallsGiveTheSameResult) {
  HostTensor x = tensor({2, 3}, {1, 2, 3, -1, 0, 1});
  HostTensor separate = zeros({2, 3});
  ASSERT_EQ(run("softmax", {x.dl()}, {separate.dl()}), OMNIRT_STATUS_OK);
  ASSERT_EQ(run("softmax", {x.dl()}, {x.dl()}), OMNIRT_STATUS_OK);
  EXPECT_EQ(x.data, separate.data);
}

TEST_F(OpsTest, EmptyTensorsAreAccepted) {
  HostTensor x = zeros({0, 4});
  HostTensor w = tensor({4}, {1, 1, 1, 1});
  HostTensor y = zeros({0, 4});
  EXPECT_EQ(run("rms_norm", {x.dl(), w.dl()}, {y.dl()}), OMNIRT_STATUS_OK);
}

TEST_F(OpsTest, BadCallsAreInvalidArgumentsNamingTheProblem) {
  HostTensor x = tensor({2, 4}, std::vector<float>(8, 1));
  HostTensor w = tensor({4}, {1, 1, 1, 1});
  HostTensor w3 = tensor({3}, {1, 1, 1});
  HostTensor y = zeros({2, 4});
  HostTensor y_wrong = zeros({4, 2});

  expect_invalid("rms_norm", {x.dl()}, {y.dl()}, "rms_norm takes 2 inputs and 1 output, got 1 and 1");
  expect_invalid("rms_norm", {x.dl(), w3.dl()}, {y.dl()},
                 "input 1 (weight): shape must be [4] (the last dimension of input 0 (x)), got [3]");
  expect_invalid("rms_norm", {x.dl(), w.dl()}, {y_wrong.dl()},
                 "output 0 (y): shape must be [2, 4] (that of input 0 (x)), got [4, 2]");
  expect_invalid("rms_norm", {x.dl(), w.dl()}, {y.dl()}, "unknown attribute 'epsilon' (known: eps)",
                 {{"epsilon", 1e-5}});
  expect_invalid("rms_norm", {x.dl(), w.dl()}, {y.dl()}, "eps must be finite and >= 0",
                 {{"eps", -1.0}});
  expect_invalid("softmax", {x.dl()}, {y.dl()}, "dim must be in [-2, 1]", {{"dim", 2}});
  expect_invalid("softmax", {x.dl()}, {y.dl()}, "dim must be an integer", {{"dim", 0.5}});
  expect_invalid("geglu", {x.dl(), w.dl()}, {y.dl()}, "input 1 (b): shape must be [2, 4]");

  DLTensor f64 = x.dl();
  f64.dtype = {kDLFloat, 64, 1};
  expect_invalid("softmax", {f64}, {y.dl()}, "input 0 (x): dtype must be float32, got float64");
  DLTensor gpu = x.dl();
  gpu.device = {kDLCUDA, 0};
  expect_invalid("softmax", {gpu}, {y.dl()}, "input 0 (x): device must be cpu, got cuda:0");
  DLTensor no_data = x.dl();
  no_data.data = nullptr;
  expect_invalid("softmax", {no_data}, {y.dl()}, "input 0 (x): data is NULL");
  DLTensor scalar = x.dl();
  scalar.ndim = 0;
  expect_invalid("softmax", {scalar}, {y.dl()}, "input 0 (x): must have 1 to 64 dimensions");
  DLTensor misaligned = x.dl();
  misaligned.byte_offset = 2;
  expect_invalid("softmax", {misaligned}, {y.dl()}, "not aligned");
}

}  // namespace
}  // namespace omnirt::engine_testing
