// The cuda backend against PyTorch on a GPU: its kernels against torch's own
// ops, its TorchScript engine (both tiers) against the module run directly.
// Skipped with the reason where CUDA cannot run.
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <memory>
#include <string>
#include <vector>

#include "cuda_plugin.h"
#include "torch_helpers.h"

namespace omnirt::cuda_test {
namespace {

class CudaTorchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (!plugin_.available(&reason) || plugin_.device_count() == 0) {
      plugin_.available(&reason);
      GTEST_SKIP() << "no CUDA device: " << reason;
    }
    if (!torch::cuda::is_available()) GTEST_SKIP() << "libtorch sees no CUDA device";
  }
  const omnirt_backend_vtable& vt() const { return *plugin_.vt(); }
  omnirt_backend_state* st() const { return plugin_.state(); }

  // Runs op `name` into a fresh tensor shaped like inputs[0].
  at::Tensor op(const char* name, const std::vector<at::Tensor>& inputs,
                std::vector<omnirt_op_attr> attrs = {}) {
    std::vector<DLTensor> in;
    for (const at::Tensor& t : inputs) in.push_back(dl_view(t));
    at::Tensor out = torch::empty_like(inputs[0]);
    DLTensor dl_out = dl_view(out);
    EXPECT_EQ(vt().op_run(st(), name, in.data(), in.size(), &dl_out, 1, attrs.data(), attrs.size(),
                          nullptr),
              OMNIRT_STATUS_OK)
        << last_error();
    torch::cuda::synchronize();
    return out;
  }

  CudaPlugin plugin_;
};

double tolerance(at::ScalarType t) { return t == at::kFloat ? 2e-5 : t == at::kHalf ? 1e-2 : 4e-2; }

// Each op on each dtype and a few shapes, against torch computing in f32 on
// the same (rounded) inputs.
TEST_F(CudaTorchTest, KernelsMatchPyTorch) {
  const std::vector<std::vector<int64_t>> shapes = {{1, 7}, {4, 1000}, {2, 3, 4096}, {33, 256}};
  for (at::ScalarType type : {at::kFloat, at::kHalf, at::kBFloat16}) {
    const auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(type);
    for (const auto& shape : shapes) {
      SCOPED_TRACE(std::string(c10::toString(type)) + " " + c10::str(at::IntArrayRef(shape)));
      const int64_t n = shape.back();
      const at::Tensor x = torch::randn(shape, opts) * 3;
      const at::Tensor b = torch::randn(shape, opts);
      const at::Tensor w = torch::randn({n}, opts);
      const at::Tensor bias = torch::randn({n}, opts);
      const double tol = tolerance(type);
      auto expect_close = [&](const at::Tensor& got, const at::Tensor& want) {
        EXPECT_TRUE(torch::allclose(got.to(torch::kFloat), want, tol, tol))
            << "max abs error " << (got.to(torch::kFloat) - want).abs().max().item<float>();
      };
      const at::Tensor xf = x.to(torch::kFloat), wf = w.to(torch::kFloat);
      expect_close(op("rms_norm", {x, w}), at::rms_norm(xf, {n}, wf, 1e-6));
      expect_close(op("rms_norm", {x, w}, {{"eps", 0.5}}), at::rms_norm(xf, {n}, wf, 0.5));
      expect_close(op("layer_norm", {x, w, bias}),
                   at::layer_norm(xf, {n}, wf, bias.to(torch::kFloat), 1e-5));
      expect_close(op("softmax", {x}), torch::softmax(xf, -1));
      expect_close(op("softmax", {x}, {{"dim", 0}}), torch::softmax(xf, 0));
      expect_close(op("geglu", {x, b}), torch::gelu(xf) * b.to(torch::kFloat));
    }
  }
}

TEST_F(CudaTorchTest, OpsRejectBadCalls) {
  const auto opts = torch::TensorOptions().device(torch::kCUDA);
  const at::Tensor x = torch::randn({4, 8}, opts), w = torch::randn({7}, opts);
  DLTensor in[2] = {dl_view(x), dl_view(w)};
  at::Tensor out = torch::empty_like(x);
  DLTensor dl_out = dl_view(out);
  EXPECT_EQ(vt().op_run(st(), "rms_norm", in, 2, &dl_out, 1, nullptr, 0, nullptr),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("weight"), std::string::npos) << last_error();
  const omnirt_op_attr typo = {"epsilon", 1e-3};
  in[1] = dl_view(torch::randn({8}, opts));
  EXPECT_EQ(vt().op_run(st(), "rms_norm", in, 2, &dl_out, 1, &typo, 1, nullptr),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(vt().op_run(st(), "swiglu", in, 2, &dl_out, 1, nullptr, 0, nullptr),
            OMNIRT_STATUS_NOT_FOUND);
  const at::Tensor on_host = torch::randn({4, 8});
  in[0] = dl_view(on_host);
  EXPECT_EQ(vt().op_run(st(), "rms_norm", in, 2, &dl_out, 1, nullptr, 0, nullptr),
            OMNIRT_STATUS_INVALID_ARGUMENT);
}

class CudaEngineTest : public CudaTorchTest, public ::testing::WithParamInterface<int32_t> {
 protected:
  void SetUp() override {
    CudaTorchTest::SetUp();
    if (IsSkipped()) return;
    const std::string bytes = mlp_torchscript();
    std::istringstream stream(bytes);
    reference_ = torch::jit::load(stream, torch::kCUDA);
    reference_.eval();
    const omnirt_module_source source = {sizeof source, "torchscript", bytes.data(), bytes.size(), nullptr};
    ASSERT_EQ(vt().module_load(st(), 0, &source, GetParam(), "mlp", &exe_), OMNIRT_STATUS_OK)
        << last_error();
  }
  void TearDown() override {
    if (exe_ != nullptr) {
      EXPECT_EQ(vt().executable_destroy(st(), exe_), OMNIRT_STATUS_OK);
    }
  }

  // One run; the output stays owned by the caller until release().
  DLManagedTensor* run(const at::Tensor& x, omnirt_stream* stream = nullptr) {
    const DLTensor in = dl_view(x);
    DLManagedTensor* out = nullptr;
    size_t count = 0;
    EXPECT_EQ(vt().executable_run(st(), exe_, &in, 1, stream, &out, 1, &count), OMNIRT_STATUS_OK)
        << last_error();
    EXPECT_EQ(count, 1u);
    return out;
  }
  at::Tensor expected(const at::Tensor& x) {
    torch::NoGradGuard no_grad;
    return reference_.forward({x}).toTensor();
  }

  torch::jit::Module reference_;
  omnirt_executable* exe_ = nullptr;
};

TEST_P(CudaEngineTest, MatchesTheModuleRunDirectly) {
  const auto opts = torch::TensorOptions().device(torch::kCUDA);
  for (int64_t batch : {1, 1, 1, 8, 1}) {  // repeats replay; a new batch captures anew
    const at::Tensor x = torch::randn({batch, 256}, opts);
    DLManagedTensor* out = run(x);
    torch::cuda::synchronize();
    EXPECT_TRUE(torch::allclose(as_tensor(out), expected(x), 1e-4, 1e-4)) << "batch " << batch;
    out->deleter(out);
  }
}

TEST_P(CudaEngineTest, HeldOutputsAreNeverOverwritten) {
  const auto opts = torch::TensorOptions().device(torch::kCUDA);
  std::vector<at::Tensor> inputs;
  std::vector<DLManagedTensor*> outputs;
  for (int i = 0; i < 6; ++i) {  // more than the graph slots of one signature
    inputs.push_back(torch::randn({1, 256}, opts));
    outputs.push_back(run(inputs.back()));
  }
  torch::cuda::synchronize();
  for (size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_TRUE(torch::allclose(as_tensor(outputs[i]), expected(inputs[i]), 1e-4, 1e-4)) << i;
    outputs[i]->deleter(outputs[i]);
  }
}

TEST_P(CudaEngineTest, RunsOnTheCallersStream) {
  omnirt_stream* stream = nullptr;
  ASSERT_EQ(vt().stream_create(st(), 0, &stream), OMNIRT_STATUS_OK);
  const at::Tensor x = torch::randn({1, 256}, torch::TensorOptions().device(torch::kCUDA));
  torch::cuda::synchronize();
  DLManagedTensor* out = run(x, stream);
  ASSERT_EQ(vt().stream_synchronize(st(), stream), OMNIRT_STATUS_OK);
  EXPECT_TRUE(torch::allclose(as_tensor(out), expected(x), 1e-4, 1e-4));
  out->deleter(out);
  EXPECT_EQ(vt().stream_destroy(st(), stream), OMNIRT_STATUS_OK);
}

TEST_P(CudaEngineTest, ReportsWrongInputsAndTooSmallOutputArrays) {
  const at::Tensor on_host = torch::randn({1, 256});
  const DLTensor in = dl_view(on_host);
  DLManagedTensor* out = nullptr;
  size_t count = 0;
  EXPECT_EQ(vt().executable_run(st(), exe_, &in, 1, nullptr, &out, 1, &count),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("input 0"), std::string::npos) << last_error();
  const at::Tensor x = torch::randn({1, 256}, torch::TensorOptions().device(torch::kCUDA));
  const DLTensor good = dl_view(x);
  EXPECT_EQ(vt().executable_run(st(), exe_, &good, 1, nullptr, &out, 0, &count),
            OMNIRT_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(count, 1u);
}

INSTANTIATE_TEST_SUITE_P(Tiers, CudaEngineTest,
                         ::testing::Values(int32_t{OMNIRT_TIER_COMPILE}, int32_t{OMNIRT_TIER_EAGER}),
                         [](const auto& param_info) {
                           return std::string(param_info.param == OMNIRT_TIER_COMPILE ? "Compile" : "Eager");
                         });

// Model I/O beyond one float tensor in and out, on both tiers: bool masks in
// (both DLPack forms) and out, a dict's entries by key and named, int, float
// and bool arguments from 0-d device tensors.
class CudaModelIoTest : public CudaTorchTest, public ::testing::WithParamInterface<int32_t> {
 protected:
  omnirt_executable* load(const std::string& source) {
    const std::string bytes = torchscript_of(source);
    const omnirt_module_source src = {sizeof src, "torchscript", bytes.data(), bytes.size(), nullptr};
    omnirt_executable* exe = nullptr;
    EXPECT_EQ(vt().module_load(st(), 0, &src, GetParam(), nullptr, &exe), OMNIRT_STATUS_OK)
        << last_error();
    loaded_.push_back(exe);
    return exe;
  }
  std::vector<DLManagedTensor*> run(omnirt_executable* exe, const std::vector<DLTensor>& in) {
    std::vector<DLManagedTensor*> out(8, nullptr);
    size_t count = 0;
    EXPECT_EQ(vt().executable_run(st(), exe, in.data(), in.size(), nullptr, out.data(), out.size(),
                                  &count),
              OMNIRT_STATUS_OK)
        << last_error();
    out.resize(count);
    torch::cuda::synchronize();
    return out;
  }
  void TearDown() override {
    for (omnirt_executable* exe : loaded_) vt().executable_destroy(st(), exe);
  }
  std::vector<omnirt_executable*> loaded_;
};

TEST_P(CudaModelIoTest, BoolMasksGoInAndComeOut) {
  omnirt_executable* exe = load(
      "def forward(self, x, mask):\n    return x.masked_fill(mask, 0.0), mask.logical_not()\n");
  const auto on_gpu = torch::TensorOptions().device(torch::kCUDA);
  const at::Tensor x = torch::randn({4, 8}, on_gpu);
  const at::Tensor mask = torch::rand({4, 8}, on_gpu) > 0.5;
  for (const DLDataType form : {DLDataType{OMNIRT_DL_BOOL, 8, 1}, DLDataType{kDLUInt, 1, 1}}) {
    for (int repeat = 0; repeat < 2; ++repeat) {  // the compile tier replays its graph
      DLTensor mask_dl = dl_view(mask);
      mask_dl.dtype = form;
      std::vector<DLManagedTensor*> out = run(exe, {dl_view(x), mask_dl});
      ASSERT_EQ(out.size(), 2u);
      EXPECT_EQ(out[1]->dl_tensor.dtype.code, OMNIRT_DL_BOOL);
      EXPECT_EQ(out[1]->dl_tensor.dtype.bits, 8);
      EXPECT_TRUE(torch::equal(as_tensor(out[0]), x.masked_fill(mask, 0.0)));
      EXPECT_TRUE(torch::equal(as_tensor(out[1]), mask.logical_not()));
      for (DLManagedTensor* t : out) t->deleter(t);
    }
  }
}

TEST_P(CudaModelIoTest, DictOutputsComeByKeyAndNamed) {
  omnirt_executable* exe = load(
      "def forward(self, x) -> Dict[str, Tensor]:\n"
      "    return {'logits': x * 2.0, 'boxes': x + 1.0, 'aux': x - 1.0}\n");
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(vt().get_capabilities(st(), &caps), OMNIRT_STATUS_OK);
  EXPECT_NE(caps.features & OMNIRT_FEATURE_OUTPUT_NAMES, 0u);
  const at::Tensor x = torch::randn({16}, torch::TensorOptions().device(torch::kCUDA));
  std::vector<DLManagedTensor*> out = run(exe, {dl_view(x)});
  ASSERT_EQ(out.size(), 3u);
  const char* keys[] = {"aux", "boxes", "logits"};
  const at::Tensor want[] = {x - 1.0, x + 1.0, x * 2.0};
  for (size_t i = 0; i < 3; ++i) {
    const char* name = nullptr;
    ASSERT_EQ(vt().output_name(st(), exe, out[i], &name), OMNIRT_STATUS_OK) << last_error();
    EXPECT_STREQ(name, keys[i]);
    EXPECT_TRUE(torch::allclose(as_tensor(out[i]), want[i])) << keys[i];
  }
  for (DLManagedTensor* t : out) t->deleter(t);
}

TEST_P(CudaModelIoTest, ScalarArgumentsComeFrom0dDeviceTensors) {
  omnirt_executable* exe = load(
      "def forward(self, x, k: int, s: float, flip: bool):\n"
      "    y = x * s + k\n"
      "    if flip:\n"
      "        return -y\n"
      "    return y\n");
  const auto on_gpu = torch::TensorOptions().device(torch::kCUDA);
  const at::Tensor x = torch::randn({2, 3}, on_gpu);
  const at::Tensor k = torch::full({}, 3, on_gpu.dtype(torch::kLong));
  const at::Tensor s = torch::full({}, 0.5, on_gpu.dtype(torch::kFloat));
  for (const bool flip : {true, false}) {  // a graph would have kept the first value
    const at::Tensor f = torch::full({}, flip, on_gpu.dtype(torch::kBool));
    std::vector<DLManagedTensor*> out = run(exe, {dl_view(x), dl_view(k), dl_view(s), dl_view(f)});
    ASSERT_EQ(out.size(), 1u);
    const at::Tensor y = x * 0.5 + 3;
    EXPECT_TRUE(torch::allclose(as_tensor(out[0]), flip ? -y : y)) << flip;
    out[0]->deleter(out[0]);
  }
}

INSTANTIATE_TEST_SUITE_P(Tiers, CudaModelIoTest,
                         ::testing::Values(int32_t{OMNIRT_TIER_COMPILE}, int32_t{OMNIRT_TIER_EAGER}),
                         [](const auto& param_info) {
                           return std::string(param_info.param == OMNIRT_TIER_COMPILE ? "Compile" : "Eager");
                         });

TEST(CudaEngineLoadTest, RejectsBytesThatAreNotTorchScript) {
  CudaPlugin plugin;
  if (!plugin.available() || plugin.device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const char garbage[] = "not a zip archive";
  const omnirt_module_source source = {sizeof source, "torchscript", garbage, sizeof garbage, nullptr};
  omnirt_executable* exe = nullptr;
  EXPECT_EQ(plugin.vt()->module_load(plugin.state(), 0, &source, OMNIRT_TIER_EAGER, nullptr, &exe),
            OMNIRT_STATUS_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace omnirt::cuda_test
