// The cuda backend against PyTorch on a GPU: its kernels against torch's own
// ops, its TorchScript engine (both tiers) against the module run directly.
// Skipped with the reason where CUDA cannot run.
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cuda_plugin.h"
#include "op_cases.h"
#include "torch_helpers.h"

namespace omnirt::cuda_test {
namespace {

class CudaTorchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = gpu_unavailable(plugin_);
    if (!why.empty()) GTEST_SKIP() << why;
  }
  const omnirt_backend_vtable& vt() const { return *plugin_.vt(); }
  omnirt_backend_state* st() const { return plugin_.state(); }

  // Enqueues op `name` on the device's default stream, writing `out`.
  void enqueue_op(const std::string& name, const std::vector<at::Tensor>& inputs, at::Tensor& out,
                  const std::vector<omnirt_op_attr>& attrs = {}) {
    std::vector<DLTensor> in;
    for (const at::Tensor& t : inputs) in.push_back(dl_view(t));
    DLTensor dl_out = dl_view(out);
    EXPECT_EQ(vt().op_run(st(), name.c_str(), in.data(), in.size(), &dl_out, 1, attrs.data(),
                          attrs.size(), nullptr),
              OMNIRT_STATUS_OK)
        << name << ": " << last_error();
  }

  // Runs op `name` into a fresh tensor shaped like inputs[0], poisoned with
  // NaN first so that an element the kernel does not write fails the check.
  at::Tensor op(const std::string& name, const std::vector<at::Tensor>& inputs,
                const std::vector<omnirt_op_attr>& attrs = {}) {
    at::Tensor out = torch::full_like(inputs[0], NAN);
    enqueue_op(name, inputs, out, attrs);
    torch::cuda::synchronize();
    return out;
  }

  // `got`, op `name`'s result, against ATen computing in f32 on the same
  // (rounded) inputs.
  void expect_aten_result(const std::string& name, const std::vector<at::Tensor>& inputs,
                          const at::Tensor& got, const std::vector<omnirt_op_attr>& attrs = {}) {
    std::vector<at::Tensor> upcast;
    for (const at::Tensor& t : inputs) upcast.push_back(t.to(torch::kFloat));
    const at::Tensor want = aten_op(name, upcast, attrs);
    const at::Tensor got_f32 = got.to(torch::kFloat);
    const double tol = op_tolerance(inputs[0].scalar_type());
    EXPECT_TRUE(torch::allclose(got_f32, want, tol, tol))
        << name << (attrs.empty() ? "" : std::string(" ") + attrs[0].name) << ": max abs error "
        << (got_f32 - want).abs().max().item<float>() << ", NaNs "
        << got_f32.isnan().sum().item<int64_t>();
  }

  // `op` on `inputs` against ATen computing in f32 on the same (rounded) inputs.
  void expect_matches_aten(const std::string& name, const std::vector<at::Tensor>& inputs,
                           const std::vector<omnirt_op_attr>& attrs = {}) {
    expect_aten_result(name, inputs, op(name, inputs, attrs), attrs);
  }

  CudaPlugin plugin_;
};

// Each op on each dtype, on shapes that take every kernel variant of each
// element size (launch_plan.h): 16-bit rows of 8..16 elements run the 4-lane
// groups, 128-element f32 rows a warp each, 4096 a block each (16-bit
// layer_norm's held in shared memory, as 1032 and 3000, whose blocks' last
// warps hold part of a row), 12288 eight packs per thread, 20000 f32 sixteen,
// 40000 the loop kernel; rows of odd length and rows that do not start 16-byte
// aligned are read element by element; softmax over dim 0 runs the column
// kernel; 70000 short rows take several steps of the grid-stride loop.
TEST_F(CudaTorchTest, KernelsMatchPyTorch) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 7},     {9, 16},    {33, 24},   {64, 64},   {33, 256},   {4, 1000},
      {2, 1001},  {3, 1032},  {7, 3000},  {2, 3, 4096}, {5, 12288}, {5, 20000},
      {3, 40000}, {70000, 128}};
  for (at::ScalarType type : {at::kFloat, at::kHalf, at::kBFloat16}) {
    const auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(type);
    for (const auto& shape : shapes) {
      SCOPED_TRACE(std::string(dtype_name(type)) + " " + c10::str(at::IntArrayRef(shape)));
      for (const char* name : {"rms_norm", "layer_norm", "softmax", "geglu"}) {
        expect_matches_aten(name, op_inputs(name, shape, opts));
      }
      expect_matches_aten("rms_norm", op_inputs("rms_norm", shape, opts), {{"eps", 0.5}});
      expect_matches_aten("softmax", op_inputs("softmax", shape, opts), {{"dim", 0}});
    }
  }
}

// f32 rows far from 0 against their spread (100 + N(0, 1)), on shapes of
// the group, block and loop kernels, against ATen in f64: a variance taken as
// the mean square less the squared mean, in f32 sums of 32 elements a
// thread, loses 6e-4 of it to cancellation (median; up to 2.5e-3) and
// misses by up to 1e-2 (numpy, rows of 4096); the kernels' variances about
// their means (merged across threads and warps) must not.
TEST_F(CudaTorchTest, LayerNormOfRowsFarFromZeroDoesNotCancel) {
  const auto opts = torch::TensorOptions().device(torch::kCUDA);
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{33, 24}, {4, 1000}, {2, 3, 4096}, {5, 20000}, {3, 40000}}) {
    SCOPED_TRACE(c10::str(at::IntArrayRef(shape)));
    std::vector<at::Tensor> inputs = op_inputs("layer_norm", shape, opts);
    inputs[0] = torch::randn(shape, opts) + 100;
    std::vector<at::Tensor> doubles;
    for (const at::Tensor& t : inputs) doubles.push_back(t.to(torch::kDouble));
    const at::Tensor want = aten_op("layer_norm", doubles);
    const at::Tensor got = op("layer_norm", inputs).to(torch::kDouble);
    EXPECT_TRUE(torch::allclose(got, want, 1e-4, 1e-4))
        << "max abs error " << (got - want).abs().max().item<double>();
  }
}

// Tensors that start 2 or 4 bytes past a 16-byte boundary (still contiguous).
TEST_F(CudaTorchTest, KernelsTakeUnalignedTensors) {
  for (at::ScalarType type : {at::kFloat, at::kHalf, at::kBFloat16}) {
    SCOPED_TRACE(dtype_name(type));
    const auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(type);
    auto unaligned = [&](const at::Tensor& t) {
      at::Tensor storage = torch::empty({t.numel() + 1}, opts);
      at::Tensor view = storage.narrow(0, 1, t.numel()).view(t.sizes());
      view.copy_(t);
      return view;
    };
    for (const char* name : {"rms_norm", "layer_norm", "softmax", "geglu"}) {
      std::vector<at::Tensor> inputs = op_inputs(name, {16, 512}, opts);
      for (at::Tensor& t : inputs) t = unaligned(t);
      expect_matches_aten(name, inputs);
    }
  }
}

// Ops on one stream, each reading what the op before it wrote, with nothing
// between them: on sm_90 and later every kernel lets the next one start
// before it ends (programmatic dependent launch), and layer_norm's f32
// blocks ask L2 to prefetch their rows before waiting for the kernel before
// them, so a kernel that read its input early would read the NaN every
// output starts as. Each step is checked against ATen on the step before's
// result. Rows of 4096 run whole blocks (layer_norm f32's prefetching),
// 128 groups of lanes, 20000 the norms' wide f32 and packed 16-bit blocks
// and softmax's f32 b16 and 16-bit shared-memory rows.
TEST_F(CudaTorchTest, ChainedOpsReadWhatTheOpBeforeWrote) {
  constexpr int kSteps = 9;
  const char* const kOps[] = {"layer_norm", "softmax", "rms_norm"};
  for (at::ScalarType type : {at::kFloat, at::kHalf, at::kBFloat16}) {
    const auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(type);
    for (const std::vector<int64_t>& shape :
         std::vector<std::vector<int64_t>>{{2048, 4096}, {70000, 128}, {64, 20000}}) {
      SCOPED_TRACE(std::string(dtype_name(type)) + " " + c10::str(at::IntArrayRef(shape)));
      const std::vector<at::Tensor> given = op_inputs("layer_norm", shape, opts);  // x, weight, bias
      std::vector<at::Tensor> steps = {given[0]};
      for (int i = 0; i < kSteps; ++i) steps.push_back(torch::full_like(given[0], NAN));
      auto inputs_of = [&](int i) {
        const std::string name = kOps[i % 3];
        if (name == "softmax") return std::vector<at::Tensor>{steps[i]};
        if (name == "rms_norm") return std::vector<at::Tensor>{steps[i], given[1]};
        return std::vector<at::Tensor>{steps[i], given[1], given[2]};
      };
      torch::cuda::synchronize();  // the inputs and the poison are in place
      for (int i = 0; i < kSteps; ++i) enqueue_op(kOps[i % 3], inputs_of(i), steps[i + 1]);
      torch::cuda::synchronize();
      for (int i = 0; i < kSteps; ++i) {
        SCOPED_TRACE("step " + std::to_string(i));
        expect_aten_result(kOps[i % 3], inputs_of(i), steps[i + 1]);
      }
    }
  }
}

// The cases cuda_kernel_bench times, at full size.
TEST_F(CudaTorchTest, EveryBenchmarkCaseMatchesATen) {
  for (const OpCase& c : op_cases()) {
    SCOPED_TRACE(c.op + " " + dtype_name(c.dtype) + " " + c10::str(at::IntArrayRef(c.shape)));
    const auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(c.dtype);
    expect_matches_aten(c.op, op_inputs(c.op, c.shape, opts));
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

// The compile tier cannot capture a module that synchronizes with the host:
// it runs the frozen module instead, and says so once for those inputs.
TEST_F(CudaTorchTest, ACaptureThatFailsFallsBackToTheModuleAndSaysSo) {
  const std::string bytes = host_sync_torchscript();
  const omnirt_module_source source = {sizeof source, "torchscript", bytes.data(), bytes.size(), nullptr};
  omnirt_executable* exe = nullptr;
  ASSERT_EQ(vt().module_load(st(), 0, &source, OMNIRT_TIER_COMPILE, "sync", &exe), OMNIRT_STATUS_OK)
      << last_error();
  const at::Tensor x = torch::randn({4, 8}, torch::TensorOptions().device(torch::kCUDA));
  const at::Tensor expected = x * x.sum().item<float>();
  last_warning().clear();
  for (int run = 0; run < 3; ++run) {
    const DLTensor in = dl_view(x);
    DLManagedTensor* out = nullptr;
    size_t count = 0;
    ASSERT_EQ(vt().executable_run(st(), exe, &in, 1, nullptr, &out, 1, &count), OMNIRT_STATUS_OK)
        << last_error();
    torch::cuda::synchronize();
    EXPECT_TRUE(torch::allclose(as_tensor(out), expected, 1e-4, 1e-4)) << "run " << run;
    out->deleter(out);
    if (run == 0) {
      EXPECT_NE(last_warning().find("module 'sync': CUDA graph capture failed for inputs [4x8 Float]"),
                std::string::npos)
          << last_warning();
      last_warning().clear();
    } else {
      EXPECT_EQ(last_warning(), "") << "said again on run " << run;
    }
  }
  EXPECT_EQ(vt().executable_destroy(st(), exe), OMNIRT_STATUS_OK);
}

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
