// Events of the cpu backend: completion when the stream reaches the record,
// real timing, cross-stream waits, and the never-recorded rules of backend.h.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "cpu_backend.h"
#include "test_support.h"

namespace omnirt::cpu {
namespace {

using namespace std::chrono_literals;
using testing::Gate;
using testing::status_of;

class CpuEvents : public ::testing::Test {
 protected:
  void SetUp() override {
    stream_ = backend_.stream_create(0);
    other_ = backend_.stream_create(0);
    start_ = backend_.event_create(0);
    end_ = backend_.event_create(0);
  }
  // Work that holds `stream` until the gate opens.
  void block(omnirt_stream* stream, const Gate& gate) {
    backend_.resolve_stream(stream)->enqueue(gate.task());
  }

  CpuBackend backend_;
  omnirt_stream* stream_ = nullptr;
  omnirt_stream* other_ = nullptr;
  omnirt_event* start_ = nullptr;
  omnirt_event* end_ = nullptr;
};

TEST_F(CpuEvents, NeverRecordedIsCompleteButHasNoTime) {
  EXPECT_TRUE(backend_.event_query(start_));
  backend_.event_synchronize(start_);
  backend_.event_record(end_, stream_);
  backend_.event_synchronize(end_);
  float ms = 0;
  EXPECT_EQ(status_of([&] { ms = backend_.event_elapsed_time(start_, end_); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { ms = backend_.event_elapsed_time(end_, start_); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
}

TEST_F(CpuEvents, CompletesOnlyWhenTheStreamReachesTheRecord) {
  Gate gate;
  block(stream_, gate);
  backend_.event_record(start_, stream_);
  EXPECT_FALSE(backend_.event_query(start_));
  EXPECT_EQ(status_of([&] { backend_.event_elapsed_time(start_, start_); }),
            OMNIRT_STATUS_NOT_READY);
  gate.open_after(20ms);
  backend_.event_synchronize(start_);
  EXPECT_TRUE(backend_.event_query(start_));
  EXPECT_TRUE(backend_.stream_query(stream_));
}

TEST_F(CpuEvents, ElapsedTimeMeasuresTheWorkBetweenTheRecords) {
  const auto before = std::chrono::steady_clock::now();
  backend_.event_record(start_, stream_);
  backend_.resolve_stream(stream_)->enqueue([] { std::this_thread::sleep_for(50ms); });
  backend_.event_record(end_, stream_);
  backend_.event_synchronize(end_);
  const std::chrono::duration<float, std::milli> wall = std::chrono::steady_clock::now() - before;

  const float ms = backend_.event_elapsed_time(start_, end_);
  EXPECT_GE(ms, 50.0f);
  EXPECT_LE(ms, wall.count());
  EXPECT_LE(backend_.event_elapsed_time(end_, start_), -50.0f);
}

TEST_F(CpuEvents, QueriesReferToTheLatestRecord) {
  backend_.event_record(start_, stream_);
  backend_.event_synchronize(start_);
  Gate gate;
  block(other_, gate);
  backend_.event_record(start_, other_);
  EXPECT_FALSE(backend_.event_query(start_));
  gate.open();
  backend_.event_synchronize(start_);
  EXPECT_TRUE(backend_.event_query(start_));
}

TEST_F(CpuEvents, StreamWaitEventHoldsLaterWorkUntilTheEventCompletes) {
  std::vector<unsigned char> src(4096, 0x11), dst(4096, 0);
  Gate gate;
  block(stream_, gate);
  backend_.memset_async(src.data(), 0x5A, src.size(), stream_);
  backend_.event_record(start_, stream_);
  backend_.stream_wait_event(other_, start_);
  backend_.memcpy_async(dst.data(), src.data(), dst.size(), OMNIRT_MEMCPY_HOST_TO_DEVICE, other_);

  std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(backend_.stream_query(other_));
  EXPECT_EQ(dst[0], 0);
  gate.open();
  backend_.stream_synchronize(other_);
  EXPECT_EQ(dst, std::vector<unsigned char>(4096, 0x5A));
}

TEST_F(CpuEvents, WaitingForANeverRecordedEventDoesNotBlock) {
  backend_.stream_wait_event(other_, start_);
  backend_.stream_synchronize(other_);
  EXPECT_TRUE(backend_.stream_query(other_));
}

TEST_F(CpuEvents, DestroyingAnEventAStreamWaitsForIsSafe) {
  Gate gate;
  block(stream_, gate);
  backend_.event_record(start_, stream_);
  backend_.stream_wait_event(other_, start_);
  backend_.event_destroy(start_);
  EXPECT_FALSE(backend_.stream_query(other_));
  gate.open();
  backend_.stream_synchronize(other_);
  EXPECT_EQ(status_of([&] { backend_.event_query(start_); }), OMNIRT_STATUS_INVALID_ARGUMENT);
}

TEST_F(CpuEvents, DefaultStreamRecordsToo) {
  backend_.event_record(start_, nullptr);
  backend_.event_record(end_, nullptr);
  backend_.event_synchronize(end_);
  EXPECT_GE(backend_.event_elapsed_time(start_, end_), 0.0f);
}

TEST_F(CpuEvents, UnknownAndDestroyedEventsAreInvalidArgument) {
  auto* bogus = reinterpret_cast<omnirt_event*>(&backend_);
  EXPECT_EQ(status_of([&] { backend_.event_query(bogus); }), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.event_record(bogus, stream_); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  backend_.event_destroy(end_);
  EXPECT_EQ(status_of([&] { backend_.event_destroy(end_); }), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.event_synchronize(end_); }), OMNIRT_STATUS_INVALID_ARGUMENT);
  backend_.event_destroy(nullptr);
}

}  // namespace
}  // namespace omnirt::cpu
