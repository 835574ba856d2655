// Named-op lookup (own kernel -> base cpu kernel for host tensors ->
// NOT_SUPPORTED), list_overridden_ops, and named ops as a module's override
// tier. Needs the cpu backend (the base implementation).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "wrap_test_util.h"

using namespace wraptest;
using ::testing::HasSubstr;

namespace {

constexpr float kEps = 1e-5f;

// rms_norm of each row of x (rows of `cols`) times w, computed here.
std::vector<float> rms_norm_reference(const Tensor& x, const Tensor& w) {
  const size_t cols = w.data.size();
  std::vector<float> out(x.data.size());
  for (size_t r = 0; r < x.data.size() / cols; ++r) {
    double sum = 0;
    for (size_t c = 0; c < cols; ++c) sum += double(x.data[r * cols + c]) * x.data[r * cols + c];
    const double inv = 1.0 / std::sqrt(sum / cols + kEps);
    for (size_t c = 0; c < cols; ++c)
      out[r * cols + c] = float(x.data[r * cols + c] * inv * w.data[c]);
  }
  return out;
}

void expect_near(const float* got, const std::vector<float>& want) {
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << "element " << i;
}

class Ops : public ::testing::Test {
 protected:
  Ops()
      : host_({WRAP_FAKE_PLUGIN, WRAP_DEV_PLUGIN, WRAP_CPU_PLUGIN},
              "wrap_module:\n  policies:\n    rms_norm: [override, compile, eager]\n"
              "    softmax: [override]\n    nosuchop: [override]\n") {}

  void SetUp() override {
    ASSERT_EQ(host_.status(), OMNIRT_STATUS_OK) << last_message();
    fake_ = host_.backend("wrapfake");
    dev_ = host_.backend("wrapdev");
    cpu_ = host_.backend("cpu");
    ASSERT_TRUE(fake_ && dev_ && cpu_);
  }

  omnirt_status run_rms_norm(omnirt_backend* b, Tensor& x, Tensor& w, Tensor& y) {
    DLTensor in[2] = {x.view(), w.view()};
    DLTensor out = y.view();
    const omnirt_op_attr eps{"eps", kEps};
    return omnirt_op_run(b, "rms_norm", in, 2, &out, 1, &eps, 1, nullptr);
  }

  omnirt_status wrap(omnirt_backend* b, const char* tag, Module* out, omnirt_report* report) {
    omnirt_module_source src{};
    src.struct_size = sizeof src;
    src.format = "torchscript";  // never loaded: the policy tries the override tier first
    src.data = "unused";
    src.size = 6;
    const omnirt_op_attr eps{"eps", kEps};
    omnirt_wrap_options opt{};
    opt.struct_size = sizeof opt;
    opt.attrs = &eps;
    opt.num_attrs = 1;
    omnirt_module* m = nullptr;
    const omnirt_status s = omnirt_wrap_module(b, &src, tag, &opt, report, &m);
    out->reset(m);
    return s;
  }

  Host host_;
  omnirt_backend* fake_ = nullptr;
  omnirt_backend* dev_ = nullptr;
  omnirt_backend* cpu_ = nullptr;
  Tensor x_ = iota({3, 4}, -5.0f);
  Tensor w_ = iota({4}, 0.5f);
};

TEST_F(Ops, BackendWithoutTheOpUsesTheBaseForHostTensors) {
  omnirt_backend* implementer = nullptr;
  ASSERT_EQ(omnirt_op_resolve(fake_, "rms_norm", &implementer), OMNIRT_STATUS_OK);
  EXPECT_EQ(implementer, cpu_);
  Tensor y = iota({3, 4}, 0);
  ASSERT_EQ(run_rms_norm(fake_, x_, w_, y), OMNIRT_STATUS_OK) << last_message();
  expect_near(y.data.data(), rms_norm_reference(x_, w_));
}

TEST_F(Ops, DeviceTensorsAreNeverRoutedToTheBase) {
  Tensor y = iota({3, 4}, 0);
  x_.device = DLDevice{kDLExtDev, 0};
  EXPECT_EQ(run_rms_norm(fake_, x_, w_, y), OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(
      last_message(),
      "backend 'wrapfake' has no op 'rms_norm' and the base implementation cannot run it: "
      "input 0 is in kDLExtDev:0 memory; the base runs host memory (kDLCPU, kDLCUDAHost) only");
  EXPECT_STREQ(omnirt_last_error()->backend, "wrapfake");
}

TEST_F(Ops, UnknownOpIsNotSupportedNamingBackendAndOp) {
  omnirt_backend* implementer = cpu_;
  EXPECT_EQ(omnirt_op_resolve(fake_, "no_such_op", &implementer), OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(implementer, nullptr);
  EXPECT_EQ(last_message(),
            "backend 'wrapfake' has no op 'no_such_op' and the base implementation cannot run "
            "it: the base backend 'cpu' has no such op either");
  Tensor y = iota({3, 4}, 0);
  DLTensor in = x_.view(), out = y.view();
  EXPECT_EQ(omnirt_op_run(cpu_, "no_such_op", &in, 1, &out, 1, nullptr, 0, nullptr),
            OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(last_message(), HasSubstr("backend 'cpu' has no op 'no_such_op'"));
}

TEST_F(Ops, OwnKernelIsPreferredAndListedAsOverride) {
  omnirt_backend* implementer = nullptr;
  ASSERT_EQ(omnirt_op_resolve(dev_, "rms_norm", &implementer), OMNIRT_STATUS_OK);
  EXPECT_EQ(implementer, dev_);
  Tensor y = iota({3, 4}, 0);
  x_.device = w_.device = y.device = DLDevice{kDLExtDev, 0};
  ASSERT_EQ(run_rms_norm(dev_, x_, w_, y), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(y.data[0], 2.0f * x_.data[0]);  // the fake's kernel, not rms_norm

  const char* names[4] = {};
  size_t count = 0;
  ASSERT_EQ(omnirt_list_overridden_ops(dev_, names, 4, &count), OMNIRT_STATUS_OK);
  ASSERT_EQ(count, 1u);  // "twice" is its own, but the base has none to override
  EXPECT_STREQ(names[0], "rms_norm");
  ASSERT_EQ(omnirt_list_overridden_ops(dev_, nullptr, 0, &count), OMNIRT_STATUS_OK);
  EXPECT_EQ(count, 1u);
  ASSERT_EQ(omnirt_list_overridden_ops(fake_, names, 4, &count), OMNIRT_STATUS_OK);
  EXPECT_EQ(count, 0u);
  ASSERT_EQ(omnirt_list_overridden_ops(cpu_, names, 4, &count), OMNIRT_STATUS_OK);
  EXPECT_EQ(count, 0u);  // the base overrides nothing
}

TEST_F(Ops, CpuKernelServesTheOverrideTier) {
  Report report = make_report(cpu_);
  Module m;
  ASSERT_EQ(wrap(cpu_, "rms_norm", &m, report.get()), OMNIRT_STATUS_OK) << last_message();
  const auto a = attempts(m.get());
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].tier, OMNIRT_TIER_OVERRIDE);
  EXPECT_EQ(a[0].selected, 1);
  EXPECT_EQ(report_json(report.get())["timeline"][0]["attempts"][0]["detail"],
            "op 'rms_norm' of backend 'cpu'");

  DLTensor in[2] = {x_.view(), w_.view()};
  Outputs out;
  ASSERT_EQ(omnirt_module_run(m.get(), in, 2, nullptr, out.slots, 8, &out.count, nullptr),
            OMNIRT_STATUS_OK)
      << last_message();
  ASSERT_EQ(out.count, 1u);
  const DLTensor& y = out.slots[0]->dl_tensor;  // shaped and typed like input 0
  EXPECT_EQ(y.ndim, 2);
  EXPECT_EQ(y.shape[0], 3);
  EXPECT_EQ(y.shape[1], 4);
  EXPECT_EQ(y.dtype.code, kDLFloat);
  expect_near(out.floats(0), rms_norm_reference(x_, w_));

  Outputs none;
  EXPECT_EQ(omnirt_module_run(m.get(), in, 1, nullptr, none.slots, 8, &none.count, nullptr),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(last_message(), "op 'rms_norm': expected 2 inputs, got 1");
}

// Returns input 0 negated: tells an embedder override from the op.
omnirt_status negate(void*, const DLTensor* inputs, size_t, DLManagedTensor** outputs,
                     size_t capacity, size_t* num_outputs) {
  *num_outputs = 1;
  if (capacity < 1) return OMNIRT_STATUS_OUT_OF_RANGE;
  outputs[0] = map_floats(inputs[0], [](float v) { return -v; });
  return OMNIRT_STATUS_OK;
}

TEST_F(Ops, EmbedderOverrideTakesPrecedenceOverTheNamedOp) {
  ASSERT_EQ(omnirt_register_override(cpu_, "rms_norm", &negate, nullptr), OMNIRT_STATUS_OK);
  DLTensor in[2] = {x_.view(), w_.view()};
  {
    Report report = make_report(cpu_);
    Module m;
    ASSERT_EQ(wrap(cpu_, "rms_norm", &m, report.get()), OMNIRT_STATUS_OK) << last_message();
    EXPECT_EQ(report_json(report.get())["timeline"][0]["attempts"][0]["detail"],
              "embedder override");
    Outputs out;
    ASSERT_EQ(omnirt_module_run(m.get(), in, 2, nullptr, out.slots, 8, &out.count, nullptr),
              OMNIRT_STATUS_OK);
    EXPECT_EQ(out.floats(0)[5], -x_.data[5]);
  }
  ASSERT_EQ(omnirt_unregister_override(cpu_, "rms_norm"), OMNIRT_STATUS_OK);
  Module m;  // without it, the cpu kernel serves the tier again
  ASSERT_EQ(wrap(cpu_, "rms_norm", &m, nullptr), OMNIRT_STATUS_OK);
  Outputs out;
  ASSERT_EQ(omnirt_module_run(m.get(), in, 2, nullptr, out.slots, 8, &out.count, nullptr),
            OMNIRT_STATUS_OK);
  expect_near(out.floats(0), rms_norm_reference(x_, w_));
}

TEST_F(Ops, BaseKernelServesTheOverrideTierOfAHostBackend) {
  Report report = make_report(fake_);
  Module m;
  ASSERT_EQ(wrap(fake_, "rms_norm", &m, report.get()), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(report_json(report.get())["timeline"][0]["attempts"][0]["detail"],
            "op 'rms_norm' of backend 'cpu' (base implementation)");
  DLTensor in[2] = {x_.view(), w_.view()};
  {
    Outputs out;
    ASSERT_EQ(omnirt_module_run(m.get(), in, 2, nullptr, out.slots, 8, &out.count, report.get()),
              OMNIRT_STATUS_OK)
        << last_message();
    expect_near(out.floats(0), rms_norm_reference(x_, w_));
    // The output lives in the wrapping backend's memory until its deleter runs.
    const auto memory = report_json(report.get())["memory"];
    EXPECT_EQ(memory["allocated_bytes"], 3 * 4 * sizeof(float));
  }
  EXPECT_EQ(report_json(report.get())["memory"]["allocated_bytes"], 0);
}

TEST_F(Ops, TheBaseBackendWithoutTheOpSaysJustThat) {
  Module m;
  EXPECT_EQ(wrap(cpu_, "nosuchop", &m, nullptr), OMNIRT_STATUS_NOT_FOUND);
  EXPECT_THAT(last_message(),
              HasSubstr("override: NOT_FOUND (no embedder override for tag 'nosuchop', and "
                        "backend 'cpu' has no op 'nosuchop')"));
}

TEST_F(Ops, BaseIsNotUsedForTheOverrideTierOfADeviceBackend) {
  Module m;
  EXPECT_EQ(wrap(dev_, "softmax", &m, nullptr), OMNIRT_STATUS_NOT_FOUND);
  EXPECT_THAT(last_message(),
              HasSubstr("backend 'wrapdev' has no op 'softmax' and the base implementation cannot "
                        "run it: backend 'wrapdev' keeps tensors in kDLExtDev memory"));
}

}  // namespace
