// Work that completes later than the call that enqueued it returns, timed by
// its completion: omnirt::CompletionTimer (omnirt/cpp/host.hpp) and
// omnirt_module_run with a report. The `late` fake's runs take kRunMs on their
// stream (fake_plugin.c, FAKE_MODULES). Built against ABI 1.1 it has a
// default-stream handle; built against the frozen 1.0 headers it has none, so
// work on NULL is waited for with device_synchronize and has no device time.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "omnirt/cpp/host.hpp"
#include "test_support.h"

namespace {

using namespace omnirt_test;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

constexpr double kRunMs = 60;
// Device time is kRunMs plus the host's time between recording the start
// event and enqueueing the run: microseconds, but a loaded machine may stall.
constexpr double kDeviceSlackMs = 50;

struct ModuleDeleter {
  void operator()(omnirt_module* m) const { omnirt_module_destroy(m); }
};
struct ReportDeleter {
  void operator()(omnirt_report* r) const { omnirt_report_destroy(r); }
};
struct StreamDeleter {
  omnirt_backend* backend;
  void operator()(omnirt_stream* s) const { omnirt_stream_destroy(backend, s); }
};

struct Plugin {
  const char* path;
  bool has_default_stream;  // built against ABI 1.1
};
void PrintTo(const Plugin& plugin, std::ostream* os) { *os << plugin.path; }

class LateRuns : public ::testing::TestWithParam<Plugin> {
 protected:
  void SetUp() override {
    host_ = make_host({GetParam().path});
    ASSERT_EQ(omnirt_host_get_backend(host_.get(), "late", &backend_), OMNIRT_STATUS_OK)
        << last_message();
    const std::string text = "run_ms=" + std::to_string(kRunMs);
    omnirt_module_source source{};
    source.struct_size = sizeof source;
    source.format = "fake";
    source.data = text.data();
    source.size = text.size();
    omnirt_module* module = nullptr;
    ASSERT_EQ(omnirt_wrap_module(backend_, &source, "late", nullptr, nullptr, &module),
              OMNIRT_STATUS_OK)
        << last_message();
    module_.reset(module);
    input_.data = values_.data();
    input_.device = DLDevice{kDLCPU, 0};
    input_.ndim = 2;
    input_.dtype = DLDataType{kDLFloat, 32, 1};
    input_.shape = shape_.data();
  }

  // One run on `stream`; its output is released at once (stream order keeps
  // it valid for the work).
  omnirt_status run(omnirt_stream* stream, omnirt_report* report = nullptr) {
    DLManagedTensor* out = nullptr;
    size_t count = 0;
    const omnirt_status status =
        omnirt_module_run(module_.get(), &input_, 1, stream, &out, 1, &count, report);
    if (status == OMNIRT_STATUS_OK) {
      EXPECT_EQ(static_cast<float*>(out->dl_tensor.data)[5], 12.0f);
      out->deleter(out);
    }
    return status;
  }

  std::unique_ptr<omnirt_stream, StreamDeleter> make_stream() {
    omnirt_stream* stream = nullptr;
    EXPECT_EQ(omnirt_stream_create(backend_, 0, &stream), OMNIRT_STATUS_OK) << last_message();
    return {stream, StreamDeleter{backend_}};
  }

  omnirt_stream* default_stream() {
    omnirt_stream* stream = nullptr;
    EXPECT_EQ(omnirt_stream_get_default(backend_, 0, &stream), OMNIRT_STATUS_OK) << last_message();
    return stream;
  }

  void expect_device_time(const omnirt::CompletedTime& t) {
    ASSERT_TRUE(t.device_ms.has_value());
    EXPECT_GE(*t.device_ms, kRunMs);
    EXPECT_LT(*t.device_ms, kRunMs + kDeviceSlackMs);
  }

  HostPtr host_;
  omnirt_backend* backend_ = nullptr;
  std::unique_ptr<omnirt_module, ModuleDeleter> module_;
  std::vector<float> values_ = {1, 2, 3, 4, 5, 6};
  std::vector<int64_t> shape_ = {2, 3};
  DLTensor input_{};
};

TEST_P(LateRuns, ARunReturnsBeforeItsWorkCompletes) {
  auto stream = make_stream();
  ASSERT_EQ(run(stream.get()), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(omnirt_stream_query(backend_, stream.get()), OMNIRT_STATUS_NOT_READY);
  ASSERT_EQ(omnirt_stream_synchronize(backend_, stream.get()), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_stream_query(backend_, stream.get()), OMNIRT_STATUS_OK);
  if (!GetParam().has_default_stream) return;
  ASSERT_EQ(run(nullptr), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(omnirt_stream_query(backend_, default_stream()), OMNIRT_STATUS_NOT_READY)
      << "a NULL-stream run is ordered on the default stream's handle";
}

TEST_P(LateRuns, TimerWaitsForARunOnTheDefaultStream) {
  omnirt::CompletionTimer timer;
  ASSERT_EQ(timer.init(backend_, 0), OMNIRT_STATUS_OK) << last_message();
  ASSERT_EQ(timer.begin(nullptr), OMNIRT_STATUS_OK) << last_message();
  ASSERT_EQ(run(nullptr), OMNIRT_STATUS_OK) << last_message();
  omnirt::CompletedTime t;
  ASSERT_EQ(timer.end(&t), OMNIRT_STATUS_OK) << last_message();
  EXPECT_GE(t.wall_ms, kRunMs);
  if (GetParam().has_default_stream) {
    EXPECT_EQ(timer.waits_by(), omnirt::CompletionTimer::Wait::kEvent);
    expect_device_time(t);
    EXPECT_EQ(omnirt_stream_query(backend_, default_stream()), OMNIRT_STATUS_OK);
  } else {
    EXPECT_EQ(timer.waits_by(), omnirt::CompletionTimer::Wait::kDevice);
    EXPECT_FALSE(t.device_ms.has_value()) << "no handle for NULL: no events to time it with";
  }
}

TEST_P(LateRuns, TimerWaitsForARunOnAGivenStreamWithDeviceTime) {
  auto stream = make_stream();
  omnirt::CompletionTimer timer;
  ASSERT_EQ(timer.init(backend_, 0), OMNIRT_STATUS_OK) << last_message();
  for (int i = 0; i < 2; ++i) {  // a timer is reused run after run
    ASSERT_EQ(timer.begin(stream.get()), OMNIRT_STATUS_OK) << last_message();
    ASSERT_EQ(run(stream.get()), OMNIRT_STATUS_OK) << last_message();
    omnirt::CompletedTime t;
    ASSERT_EQ(timer.end(&t), OMNIRT_STATUS_OK) << last_message();
    EXPECT_EQ(timer.waits_by(), omnirt::CompletionTimer::Wait::kEvent);
    EXPECT_GE(t.wall_ms, kRunMs);
    expect_device_time(t);
    EXPECT_EQ(omnirt_stream_query(backend_, stream.get()), OMNIRT_STATUS_OK);
  }
}

TEST_P(LateRuns, TimerWithoutDeviceTimeOnlyWaits) {
  omnirt::CompletionTimer timer;
  ASSERT_EQ(timer.init(backend_, 0, /*device_time=*/false), OMNIRT_STATUS_OK) << last_message();
  ASSERT_EQ(timer.begin(nullptr), OMNIRT_STATUS_OK);
  ASSERT_EQ(run(nullptr), OMNIRT_STATUS_OK) << last_message();
  omnirt::CompletedTime t;
  ASSERT_EQ(timer.end(&t), OMNIRT_STATUS_OK) << last_message();
  EXPECT_GE(t.wall_ms, kRunMs);
  EXPECT_FALSE(t.device_ms.has_value());
  EXPECT_EQ(timer.waits_by(), GetParam().has_default_stream
                                  ? omnirt::CompletionTimer::Wait::kStream
                                  : omnirt::CompletionTimer::Wait::kDevice);
}

TEST_P(LateRuns, ARunWithAReportReturnsOnceCompleteAndRecordsBothTimes) {
  omnirt_report* raw = nullptr;
  ASSERT_EQ(omnirt_report_create(backend_, "late", &raw), OMNIRT_STATUS_OK);
  std::unique_ptr<omnirt_report, ReportDeleter> report(raw);
  for (int i = 0; i < 2; ++i) {
    const Clock::time_point start = Clock::now();
    ASSERT_EQ(run(nullptr, report.get()), OMNIRT_STATUS_OK) << last_message();
    EXPECT_GE(ms_since(start), kRunMs);
    if (GetParam().has_default_stream) {
      EXPECT_EQ(omnirt_stream_query(backend_, default_stream()), OMNIRT_STATUS_OK);
    }
  }
  char* text = nullptr;
  ASSERT_EQ(omnirt_report_to_json(report.get(), &text), OMNIRT_STATUS_OK);
  const nlohmann::json doc = nlohmann::json::parse(text);
  omnirt_string_free(text);
  EXPECT_EQ(doc["schema_version"], 2);
  const nlohmann::json& stage = doc["stages"].back();
  ASSERT_EQ(stage["kind"], "run");
  EXPECT_GE(stage["ms"].get<double>(), kRunMs);
  const nlohmann::json& runs = doc["runs"];
  EXPECT_EQ(runs["count"], 2);
  EXPECT_GE(runs["min_ms"].get<double>(), kRunMs);
  if (GetParam().has_default_stream) {
    ASSERT_TRUE(stage["device_ms"].is_number()) << stage;
    EXPECT_GE(stage["device_ms"].get<double>(), kRunMs);
    EXPECT_LT(stage["device_ms"].get<double>(), kRunMs + kDeviceSlackMs);
    EXPECT_EQ(runs["device_timed"], 2);
    EXPECT_GE(runs["device_min_ms"].get<double>(), kRunMs);
  } else {
    EXPECT_TRUE(stage["device_ms"].is_null()) << stage;
    EXPECT_EQ(runs["device_timed"], 0);
    EXPECT_TRUE(runs["device_mean_ms"].is_null());
  }
}

INSTANTIATE_TEST_SUITE_P(Abi, LateRuns,
                         ::testing::Values(Plugin{ZOO_LATE, true}, Plugin{ZOO_V1_0_LATE, false}),
                         [](const auto& param_info) {
                           return std::string(param_info.param.has_default_stream ? "abi_1_1"
                                                                                  : "abi_1_0");
                         });

TEST(DefaultStream, IsOneHandlePerDeviceThatStreamDestroyRefuses) {
  HostPtr host = make_host({ZOO_LATE});
  omnirt_backend* backend = nullptr;
  ASSERT_EQ(omnirt_host_get_backend(host.get(), "late", &backend), OMNIRT_STATUS_OK);
  omnirt_stream* first = nullptr;
  omnirt_stream* again = nullptr;
  ASSERT_EQ(omnirt_stream_get_default(backend, 0, &first), OMNIRT_STATUS_OK) << last_message();
  ASSERT_EQ(omnirt_stream_get_default(backend, 0, &again), OMNIRT_STATUS_OK);
  EXPECT_NE(first, nullptr);
  EXPECT_EQ(first, again);
  EXPECT_EQ(omnirt_stream_destroy(backend, first), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(omnirt_stream_synchronize(backend, first), OMNIRT_STATUS_OK) << "still usable";
}

}  // namespace
