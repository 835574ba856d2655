// The cuda backend through the host (libomnirt.so), as an embedder sees it:
// discovery and the unavailable reason everywhere; memory and a named op
// checked against a CPU reference, and ops on the NULL stream timed to
// completion through the default stream's handle, where a GPU is present.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cuda_host.h"
#include "omnirt/cpp/host.hpp"
#include "omnirt/host.h"

namespace {

class CudaHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(omnirt::cuda_test::create_cuda_host(&host_), OMNIRT_STATUS_OK) << omnirt_last_error()->message;
  }
  void TearDown() override { omnirt_host_destroy(host_); }

  // The cuda backend, or a skip with the host's reason when it is unavailable.
  omnirt_backend* cuda_or_skip() {
    omnirt_backend* backend = nullptr;
    const omnirt_status status = omnirt_host_get_backend(host_, "cuda", &backend);
    if (status == OMNIRT_STATUS_UNAVAILABLE) {
      reason_ = omnirt_last_error()->message;
      return nullptr;
    }
    EXPECT_EQ(status, OMNIRT_STATUS_OK) << omnirt_last_error()->message;
    return backend;
  }

  omnirt_host* host_ = nullptr;
  std::string reason_;
};

TEST_F(CudaHostTest, LoadsTheCudaPluginAndSaysWhetherItCanRun) {
  ASSERT_EQ(omnirt_host_backend_count(host_), 1u);
  omnirt_backend* backend = nullptr;
  ASSERT_EQ(omnirt_host_backend_at(host_, 0, &backend), OMNIRT_STATUS_OK);
  omnirt_backend_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(omnirt_backend_get_info(backend, &info), OMNIRT_STATUS_OK);
  EXPECT_STREQ(info.name, "cuda");
  if (!info.available) {
    EXPECT_NE(std::string(info.unavailable_reason), "") << "an unavailable backend says why";
    EXPECT_EQ(omnirt_host_get_backend(host_, "cuda", &backend), OMNIRT_STATUS_UNAVAILABLE);
    std::printf("cuda through the host: %s\n", info.unavailable_reason);
  }
}

TEST_F(CudaHostTest, RunsRmsNormOnTheDeviceLikeTheCpuReference) {
  omnirt_backend* cuda = cuda_or_skip();
  if (cuda == nullptr) GTEST_SKIP() << "cuda unavailable: " << reason_;
  constexpr int64_t kRows = 3, kCols = 300;
  std::vector<float> x(kRows * kCols), w(kCols), y(kRows * kCols);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(float(i)) * 4;
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.5f + float(i % 7) / 7;
  void *dx = nullptr, *dw = nullptr, *dy = nullptr;
  ASSERT_EQ(omnirt_malloc(cuda, 0, x.size() * 4, &dx), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_malloc(cuda, 0, w.size() * 4, &dw), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_malloc(cuda, 0, y.size() * 4, &dy), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memcpy(cuda, dx, x.data(), x.size() * 4, OMNIRT_MEMCPY_HOST_TO_DEVICE), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memcpy(cuda, dw, w.data(), w.size() * 4, OMNIRT_MEMCPY_HOST_TO_DEVICE), OMNIRT_STATUS_OK);

  int64_t x_shape[] = {kRows, kCols}, w_shape[] = {kCols};
  const DLDevice gpu = {kDLCUDA, 0};
  const DLDataType f32 = {kDLFloat, 32, 1};
  const DLTensor inputs[] = {{dx, gpu, 2, f32, x_shape, nullptr, 0}, {dw, gpu, 1, f32, w_shape, nullptr, 0}};
  DLTensor output = {dy, gpu, 2, f32, x_shape, nullptr, 0};
  const omnirt_op_attr eps = {"eps", 1e-5};
  ASSERT_EQ(omnirt_op_run(cuda, "rms_norm", inputs, 2, &output, 1, &eps, 1, nullptr), OMNIRT_STATUS_OK)
      << omnirt_last_error()->message;
  ASSERT_EQ(omnirt_memcpy(cuda, y.data(), dy, y.size() * 4, OMNIRT_MEMCPY_DEVICE_TO_HOST), OMNIRT_STATUS_OK);
  for (int64_t r = 0; r < kRows; ++r) {
    double squares = 0;
    for (int64_t c = 0; c < kCols; ++c) squares += double(x[r * kCols + c]) * x[r * kCols + c];
    const double scale = 1 / std::sqrt(squares / kCols + 1e-5);
    for (int64_t c = 0; c < kCols; ++c) {
      EXPECT_NEAR(y[r * kCols + c], x[r * kCols + c] * scale * w[c], 1e-4) << r << "," << c;
    }
  }
  for (void* p : {dx, dw, dy}) EXPECT_EQ(omnirt_free(cuda, 0, p), OMNIRT_STATUS_OK);
}

// Ops given NULL run on the legacy default stream and return before they
// finish; the default stream's handle lets the timer record events around
// them and wait, so the work is complete when it returns.
TEST_F(CudaHostTest, TimesNullStreamOpsToCompletionOnTheDefaultStream) {
  omnirt_backend* cuda = cuda_or_skip();
  if (cuda == nullptr) GTEST_SKIP() << "cuda unavailable: " << reason_;
  constexpr int64_t kRows = 4096, kCols = 4096;  // 64 MiB per tensor
  void *dx = nullptr, *dw = nullptr, *dy = nullptr;
  ASSERT_EQ(omnirt_malloc(cuda, 0, kRows * kCols * 4, &dx), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_malloc(cuda, 0, kCols * 4, &dw), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_malloc(cuda, 0, kRows * kCols * 4, &dy), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memset(cuda, dx, 0, kRows * kCols * 4), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memset(cuda, dw, 0, kCols * 4), OMNIRT_STATUS_OK);
  int64_t x_shape[] = {kRows, kCols}, w_shape[] = {kCols};
  const DLDevice gpu = {kDLCUDA, 0};
  const DLDataType f32 = {kDLFloat, 32, 1};
  const DLTensor inputs[] = {{dx, gpu, 2, f32, x_shape, nullptr, 0}, {dw, gpu, 1, f32, w_shape, nullptr, 0}};
  DLTensor output = {dy, gpu, 2, f32, x_shape, nullptr, 0};

  omnirt_stream* legacy = nullptr;
  ASSERT_EQ(omnirt_stream_get_default(cuda, 0, &legacy), OMNIRT_STATUS_OK) << omnirt_last_error()->message;
  omnirt::CompletionTimer timer;
  ASSERT_EQ(timer.init(cuda, 0), OMNIRT_STATUS_OK) << omnirt_last_error()->message;
  ASSERT_EQ(timer.begin(nullptr), OMNIRT_STATUS_OK) << omnirt_last_error()->message;
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(omnirt_op_run(cuda, "rms_norm", inputs, 2, &output, 1, nullptr, 0, nullptr), OMNIRT_STATUS_OK)
        << omnirt_last_error()->message;
  }
  omnirt::CompletedTime t;
  ASSERT_EQ(timer.end(&t), OMNIRT_STATUS_OK) << omnirt_last_error()->message;
  EXPECT_EQ(timer.waits_by(), omnirt::CompletionTimer::Wait::kEvent);
  EXPECT_EQ(omnirt_stream_query(cuda, legacy), OMNIRT_STATUS_OK) << "the timer returned before the ops finished";
  ASSERT_TRUE(t.device_ms.has_value());
  // 50 passes over 128 MiB cannot take less than 50 x 128 MiB / 10 TB/s.
  EXPECT_GT(*t.device_ms, 0.6) << "the events did not bracket the ops";
  EXPECT_GT(t.wall_ms, 0.6);
  EXPECT_NE(omnirt_stream_destroy(cuda, legacy), OMNIRT_STATUS_OK) << "the default stream was destroyed";
  for (void* p : {dx, dw, dy}) EXPECT_EQ(omnirt_free(cuda, 0, p), OMNIRT_STATUS_OK);
}

}  // namespace
