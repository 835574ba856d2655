// Multi-device selection (issue 6) against PyTorch: the plugin's kernels on
// device 1 give device 0's results in every dtype (the fatbin is loaded once,
// context-independently, and must serve every device, whichever was current
// when it was loaded), and a TorchScript module loaded on device 1 runs there
// in both tiers, on the default stream and on a device-1 stream, with its
// outputs on device 1 and the caller's current device left alone. Needs two
// CUDA devices and skips with the reason otherwise. Built only with the
// engine (a CUDA libtorch); the f32 kernels are also checked without it
// (cuda_multi_device_test.cpp).
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <sstream>
#include <string>
#include <vector>

#include "caller_cuda.h"
#include "cuda_plugin.h"
#include "torch_helpers.h"

namespace omnirt::cuda_test {
namespace {

class CudaMultiDeviceTorchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (!plugin_.available(&reason) || plugin_.device_count() == 0) {
      plugin_.available(&reason);
      GTEST_SKIP() << "CUDA cannot run here: " << reason;
    }
    if (plugin_.device_count() < 2) {
      GTEST_SKIP() << "needs two CUDA devices, " << plugin_.device_count()
                   << " visible (check CUDA_VISIBLE_DEVICES)";
    }
    if (torch::cuda::device_count() < 2) {
      GTEST_SKIP() << "libtorch sees fewer than two CUDA devices";
    }
    const std::string why = caller_.open();
    ASSERT_TRUE(why.empty()) << why;
  }
  const omnirt_backend_vtable& vt() const { return *plugin_.vt(); }
  omnirt_backend_state* st() const { return plugin_.state(); }
  static torch::TensorOptions on(int device) {
    return torch::TensorOptions().device(torch::Device(torch::kCUDA, c10::DeviceIndex(device)));
  }

  // Runs op `name` on the inputs' device into a fresh tensor shaped like inputs[0].
  at::Tensor op(const char* name, const std::vector<at::Tensor>& inputs,
                omnirt_stream* stream = nullptr) {
    std::vector<DLTensor> in;
    for (const at::Tensor& t : inputs) in.push_back(dl_view(t));
    at::Tensor out = torch::empty_like(inputs[0]);
    DLTensor dl_out = dl_view(out);
    EXPECT_EQ(vt().op_run(st(), name, in.data(), in.size(), &dl_out, 1, nullptr, 0, stream),
              OMNIRT_STATUS_OK)
        << last_error();
    EXPECT_EQ(vt().device_synchronize(st(), int32_t(out.get_device())), OMNIRT_STATUS_OK);
    return out;
  }

  CudaPlugin plugin_;
  CallerCuda caller_;
};

// Device 1 first, so that the kernels are loaded while device 1 is current.
TEST_F(CudaMultiDeviceTorchTest, KernelsOnDevice1MatchDevice0) {
  omnirt_stream* stream1 = nullptr;
  ASSERT_EQ(vt().stream_create(st(), 1, &stream1), OMNIRT_STATUS_OK);
  for (at::ScalarType type : {at::kFloat, at::kHalf, at::kBFloat16}) {
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{4, 1000}, {2, 3, 4096}}) {
      SCOPED_TRACE(std::string(c10::toString(type)) + " " + c10::str(at::IntArrayRef(shape)));
      const int64_t n = shape.back();
      const at::Tensor x0 = torch::randn(shape, on(0).dtype(type)) * 3;
      const at::Tensor b0 = torch::randn(shape, on(0).dtype(type));
      const at::Tensor w0 = torch::randn({n}, on(0).dtype(type));
      const at::Tensor bias0 = torch::randn({n}, on(0).dtype(type));
      const torch::Device device1(torch::kCUDA, 1);
      const at::Tensor x1 = x0.to(device1), b1 = b0.to(device1), w1 = w0.to(device1),
                       bias1 = bias0.to(device1);
      const std::vector<std::pair<const char*, std::vector<at::Tensor>>> calls1 = {
          {"rms_norm", {x1, w1}}, {"layer_norm", {x1, w1, bias1}}, {"softmax", {x1}},
          {"geglu", {x1, b1}}};
      const std::vector<std::vector<at::Tensor>> calls0 = {
          {x0, w0}, {x0, w0, bias0}, {x0}, {x0, b0}};
      for (size_t i = 0; i < calls1.size(); ++i) {
        const char* name = calls1[i].first;
        const at::Tensor on1 = op(name, calls1[i].second);
        const at::Tensor on1_stream = op(name, calls1[i].second, stream1);
        const at::Tensor on0 = op(name, calls0[i]);
        EXPECT_EQ(on1.get_device(), 1);
        EXPECT_TRUE(torch::equal(on1.cpu(), on0.cpu()))
            << name << ": device 1 differs from device 0";
        EXPECT_TRUE(torch::equal(on1_stream.cpu(), on0.cpu())) << name << " on a device-1 stream";
      }
      // And right, not only alike.
      const at::Tensor want = at::rms_norm(x1.to(torch::kFloat), {n}, w1.to(torch::kFloat), 1e-6);
      const double tol = type == at::kFloat ? 2e-5 : type == at::kHalf ? 1e-2 : 4e-2;
      EXPECT_TRUE(torch::allclose(op("rms_norm", {x1, w1}).to(torch::kFloat), want, tol, tol));
    }
  }
  EXPECT_EQ(vt().stream_destroy(st(), stream1), OMNIRT_STATUS_OK);
}

class CudaMultiDeviceEngineTest : public CudaMultiDeviceTorchTest,
                                  public ::testing::WithParamInterface<int32_t> {
 protected:
  void SetUp() override {
    CudaMultiDeviceTorchTest::SetUp();
    if (IsSkipped()) return;
    const std::string bytes = mlp_torchscript();
    std::istringstream stream(bytes);
    reference_ = torch::jit::load(stream, torch::Device(torch::kCUDA, 1));
    reference_.eval();
    ASSERT_TRUE(caller_.set_device(0));
    const omnirt_module_source source = {sizeof source, "torchscript", bytes.data(), bytes.size(),
                                         nullptr};
    ASSERT_EQ(vt().module_load(st(), 1, &source, GetParam(), "mlp", &exe_), OMNIRT_STATUS_OK)
        << last_error();
    EXPECT_EQ(caller_.device(), 0) << "module_load on device 1 changed the current device";
  }
  void TearDown() override {
    if (exe_ != nullptr) {
      EXPECT_EQ(vt().executable_destroy(st(), exe_), OMNIRT_STATUS_OK);
    }
  }

  torch::jit::Module reference_;
  omnirt_executable* exe_ = nullptr;
};

TEST_P(CudaMultiDeviceEngineTest, RunsOnDevice1WithItsOutputsThere) {
  omnirt_stream* stream1 = nullptr;
  ASSERT_EQ(vt().stream_create(st(), 1, &stream1), OMNIRT_STATUS_OK);
  for (omnirt_stream* stream : {static_cast<omnirt_stream*>(nullptr), stream1}) {
    for (int64_t batch : {1, 1, 1, 8}) {  // repeats replay a graph; a new batch captures one
      SCOPED_TRACE(std::string(stream ? "device-1 stream" : "default stream") + ", batch " +
                   std::to_string(batch));
      const at::Tensor x = torch::randn({batch, 256}, on(1));
      torch::cuda::synchronize(1);
      const DLTensor in = dl_view(x);
      DLManagedTensor* out = nullptr;
      size_t count = 0;
      ASSERT_EQ(vt().executable_run(st(), exe_, &in, 1, stream, &out, 1, &count), OMNIRT_STATUS_OK)
          << last_error();
      EXPECT_EQ(caller_.device(), 0) << "executable_run on device 1 changed the current device";
      if (stream != nullptr) {
        ASSERT_EQ(vt().stream_synchronize(st(), stream), OMNIRT_STATUS_OK);
      }
      torch::cuda::synchronize(1);
      EXPECT_EQ(out->dl_tensor.device.device_type, kDLCUDA);
      EXPECT_EQ(out->dl_tensor.device.device_id, 1);
      EXPECT_EQ(caller_.device_of(out->dl_tensor.data), 1) << "the output's memory is on device 1";
      torch::NoGradGuard no_grad;
      const at::Tensor want = reference_.forward({x}).toTensor();
      EXPECT_TRUE(torch::allclose(as_tensor(out), want, 1e-4, 1e-4));
      out->deleter(out);
    }
  }
  EXPECT_EQ(vt().stream_destroy(st(), stream1), OMNIRT_STATUS_OK);
}

TEST_P(CudaMultiDeviceEngineTest, RejectsAStreamOrInputsOfAnotherDevice) {
  omnirt_stream* stream0 = nullptr;
  ASSERT_EQ(vt().stream_create(st(), 0, &stream0), OMNIRT_STATUS_OK);
  const at::Tensor x1 = torch::randn({1, 256}, on(1)), x0 = torch::randn({1, 256}, on(0));
  DLManagedTensor* out = nullptr;
  size_t count = 0;
  DLTensor in = dl_view(x1);
  EXPECT_EQ(vt().executable_run(st(), exe_, &in, 1, stream0, &out, 1, &count),
            OMNIRT_STATUS_INVALID_ARGUMENT)
      << "a stream of device 0 for an executable on device 1";
  EXPECT_NE(last_error().find("stream"), std::string::npos) << last_error();
  in = dl_view(x0);
  EXPECT_EQ(vt().executable_run(st(), exe_, &in, 1, nullptr, &out, 1, &count),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("input 0"), std::string::npos) << last_error();
  EXPECT_EQ(vt().stream_destroy(st(), stream0), OMNIRT_STATUS_OK);
}

INSTANTIATE_TEST_SUITE_P(Tiers, CudaMultiDeviceEngineTest,
                         ::testing::Values(int32_t{OMNIRT_TIER_COMPILE},
                                           int32_t{OMNIRT_TIER_EAGER}),
                         [](const auto& param_info) {
                           return std::string(param_info.param == OMNIRT_TIER_COMPILE ? "Compile"
                                                                                      : "Eager");
                         });

}  // namespace
}  // namespace omnirt::cuda_test
