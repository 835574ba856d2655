// AOTInductor packages (module format "aoti") on the cuda backend, both
// tiers, against eager PyTorch, beside the same model as TorchScript. The
// package comes from examples/models/export_aoti.py: OMNIRT_TEST_AOTI_DIR
// names its output folder (mlp.pt2, and mlp.pt with the same weights, with a
// dynamic batch dimension). Skipped with the reason where CUDA cannot run,
// the engine has no AOTInductor, or no package folder is given.
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cuda_plugin.h"
#include "torch_helpers.h"

namespace omnirt::cuda_test {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Why `format` cannot run here, or "" when it can.
std::string unavailable(CudaPlugin& plugin, const char* format) {
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  if (plugin.vt()->get_capabilities(plugin.state(), &caps) != OMNIRT_STATUS_OK) return last_error();
  for (size_t i = 0; i < caps.num_unavailable_module_formats; ++i) {
    if (std::string(caps.unavailable_module_formats[i].format) == format) {
      return caps.unavailable_module_formats[i].reason;
    }
  }
  return "";
}

class AotiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string no_gpu = gpu_unavailable(plugin_);
    if (!no_gpu.empty()) GTEST_SKIP() << no_gpu;
    const std::string why = unavailable(plugin_, "aoti");
    if (!why.empty()) GTEST_SKIP() << "no AOTInductor here: " << why;
    const char* dir = std::getenv("OMNIRT_TEST_AOTI_DIR");
    if (dir == nullptr || *dir == '\0') {
      GTEST_SKIP() << "OMNIRT_TEST_AOTI_DIR is not set: export the test package with "
                      "examples/models/export_aoti.py DIR mlp and point it there";
    }
    dir_ = dir;
    // The package's own input checks read this on its first run.
    setenv("AOTI_RUNTIME_CHECK_INPUTS", "1", 0);
    std::ifstream pt(dir_ + "/mlp.pt", std::ios::binary);
    ASSERT_TRUE(pt.good()) << dir_ << "/mlp.pt is missing";
    reference_ = torch::jit::load(pt, torch::kCUDA);
    reference_.eval();
  }
  void TearDown() override {
    for (omnirt_executable* e : executables_) {
      EXPECT_EQ(plugin_.vt()->executable_destroy(plugin_.state(), e), OMNIRT_STATUS_OK);
    }
  }

  omnirt_status load(const char* format, const std::string& path, int32_t tier,
                     omnirt_executable** out, const std::string* bytes = nullptr) {
    omnirt_module_source source{};
    source.struct_size = sizeof source;
    source.format = format;
    if (bytes != nullptr) {
      source.data = bytes->data();
      source.size = bytes->size();
    } else {
      source.path = path.c_str();
    }
    *out = nullptr;
    const omnirt_status s = plugin_.vt()->module_load(plugin_.state(), 0, &source, tier, "mlp", out);
    if (*out != nullptr) executables_.push_back(*out);
    return s;
  }

  omnirt_status run(omnirt_executable* exe, const std::vector<DLTensor>& in, DLManagedTensor** out) {
    size_t count = 0;
    return plugin_.vt()->executable_run(plugin_.state(), exe, in.data(), in.size(), nullptr, out, 1,
                                        &count);
  }

  at::Tensor expected(const at::Tensor& x) {
    torch::NoGradGuard no_grad;
    return reference_.forward({x}).toTensor();
  }

  CudaPlugin plugin_;
  std::string dir_;
  torch::jit::Module reference_;
  std::vector<omnirt_executable*> executables_;
};

// Both formats, both tiers: the outputs of eager PyTorch, over batch sizes
// that replay one graph and capture another (within the package's dynamic
// batch range: torch.export's dims start at 2, 0 and 1 being specialised).
TEST_F(AotiTest, BothFormatsMatchEagerPyTorchInBothTiers) {
  const auto opts = torch::TensorOptions().device(torch::kCUDA);
  for (const char* format : {"aoti", "torchscript"}) {
    for (int32_t tier : {int32_t{OMNIRT_TIER_COMPILE}, int32_t{OMNIRT_TIER_EAGER}}) {
      SCOPED_TRACE(std::string(format) + (tier == OMNIRT_TIER_COMPILE ? " compile" : " eager"));
      const std::string file = dir_ + (std::string(format) == "aoti" ? "/mlp.pt2" : "/mlp.pt");
      omnirt_executable* exe = nullptr;
      ASSERT_EQ(load(format, file, tier, &exe), OMNIRT_STATUS_OK) << last_error();
      for (int64_t batch : {2, 2, 2, 8, 2, 4}) {
        const at::Tensor x = torch::randn({batch, 256}, opts);
        DLManagedTensor* out = nullptr;
        ASSERT_EQ(run(exe, {dl_view(x)}, &out), OMNIRT_STATUS_OK) << last_error();
        torch::cuda::synchronize();
        EXPECT_TRUE(torch::allclose(as_tensor(out), expected(x), 1e-4, 1e-4)) << "batch " << batch;
        out->deleter(out);
      }
    }
  }
}

TEST_F(AotiTest, LoadsAPackageGivenAsBytes) {
  const std::string bytes = read_file(dir_ + "/mlp.pt2");
  omnirt_executable* exe = nullptr;
  ASSERT_EQ(load("aoti", "", OMNIRT_TIER_EAGER, &exe, &bytes), OMNIRT_STATUS_OK) << last_error();
  const at::Tensor x = torch::randn({3, 256}, torch::TensorOptions().device(torch::kCUDA));
  DLManagedTensor* out = nullptr;
  ASSERT_EQ(run(exe, {dl_view(x)}, &out), OMNIRT_STATUS_OK) << last_error();
  torch::cuda::synchronize();
  EXPECT_TRUE(torch::allclose(as_tensor(out), expected(x), 1e-4, 1e-4));
  out->deleter(out);
}

TEST_F(AotiTest, HeldOutputsOfTheCompileTierAreNeverOverwritten) {
  omnirt_executable* exe = nullptr;
  ASSERT_EQ(load("aoti", dir_ + "/mlp.pt2", OMNIRT_TIER_COMPILE, &exe), OMNIRT_STATUS_OK)
      << last_error();
  std::vector<at::Tensor> inputs;
  std::vector<DLManagedTensor*> outputs;
  for (int i = 0; i < 6; ++i) {  // more than the graphs of one signature
    inputs.push_back(torch::randn({2, 256}, torch::TensorOptions().device(torch::kCUDA)));
    outputs.emplace_back();
    ASSERT_EQ(run(exe, {dl_view(inputs.back())}, &outputs.back()), OMNIRT_STATUS_OK) << last_error();
  }
  torch::cuda::synchronize();
  for (size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_TRUE(torch::allclose(as_tensor(outputs[i]), expected(inputs[i]), 1e-4, 1e-4)) << i;
    outputs[i]->deleter(outputs[i]);
  }
}

TEST_F(AotiTest, WrongInputsGetTheEnginesMessage) {
  const auto opts = torch::TensorOptions().device(torch::kCUDA);
  for (int32_t tier : {int32_t{OMNIRT_TIER_COMPILE}, int32_t{OMNIRT_TIER_EAGER}}) {
    SCOPED_TRACE(tier == OMNIRT_TIER_COMPILE ? "compile" : "eager");
    omnirt_executable* exe = nullptr;
    ASSERT_EQ(load("aoti", dir_ + "/mlp.pt2", tier, &exe), OMNIRT_STATUS_OK) << last_error();
    DLManagedTensor* out = nullptr;
    const at::Tensor on_host = torch::randn({2, 256});
    EXPECT_EQ(run(exe, {dl_view(on_host)}, &out), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("input 0: must be on cuda:0"), std::string::npos) << last_error();
    const at::Tensor x = torch::randn({2, 256}, opts);
    EXPECT_EQ(run(exe, {dl_view(x), dl_view(x)}, &out), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("AOTInductor package refused the run"), std::string::npos)
        << last_error();
    // Same bytes per row as f32 would need twice: its checks refuse it (no out-of-bounds read).
    const at::Tensor wide = torch::randn({2, 256}, opts.dtype(torch::kFloat64));
    EXPECT_EQ(run(exe, {dl_view(wide)}, &out), OMNIRT_STATUS_INVALID_ARGUMENT)
        << "the package ran float64 inputs: were its input checks compiled in "
           "(AOTI_RUNTIME_CHECK_INPUTS=1 when exported)?";
    // And it still runs good inputs afterwards.
    ASSERT_EQ(run(exe, {dl_view(x)}, &out), OMNIRT_STATUS_OK) << last_error();
    torch::cuda::synchronize();
    EXPECT_TRUE(torch::allclose(as_tensor(out), expected(x), 1e-4, 1e-4));
    out->deleter(out);
  }
}

TEST_F(AotiTest, ACorruptPackageIsInvalidArgument) {
  omnirt_executable* exe = nullptr;
  const std::string garbage = "not an AOTInductor package";
  EXPECT_EQ(load("aoti", "", OMNIRT_TIER_EAGER, &exe, &garbage), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("not an AOTInductor package"), std::string::npos) << last_error();
  const std::string whole = read_file(dir_ + "/mlp.pt2");
  const std::string half = whole.substr(0, whole.size() / 2);
  EXPECT_EQ(load("aoti", "", OMNIRT_TIER_COMPILE, &exe, &half), OMNIRT_STATUS_INVALID_ARGUMENT);
  // A TorchScript archive is a zip archive too, but no package.
  const std::string torchscript = read_file(dir_ + "/mlp.pt");
  EXPECT_EQ(load("aoti", "", OMNIRT_TIER_EAGER, &exe, &torchscript), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(load("aoti", dir_ + "/no_such.pt2", OMNIRT_TIER_EAGER, &exe), OMNIRT_STATUS_NOT_FOUND);
  EXPECT_EQ(exe, nullptr);
}

}  // namespace
}  // namespace omnirt::cuda_test
