// CpuStream: one worker per stream, work in enqueue order, asynchronous,
// drained on destruction; capture records calls instead of running them.
#include "cpu_stream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

#include "test_support.h"

namespace omnirt::cpu {
namespace {

using namespace std::chrono_literals;
using testing::Gate;
using testing::status_of;
using testing::thread_count;

TEST(CpuStream, RunsWorkInEnqueueOrder) {
  CpuStream stream;
  std::vector<int> order;  // touched by the worker only until synchronize
  for (int i = 0; i < 1000; ++i) stream.enqueue([&order, i] { order.push_back(i); });
  stream.synchronize();
  ASSERT_EQ(order.size(), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(order[i], i);
}

TEST(CpuStream, EnqueueReturnsBeforeTheWorkRuns) {
  CpuStream stream;
  Gate gate;
  std::atomic<bool> ran{false};
  stream.enqueue(gate.task());
  stream.enqueue([&] { ran = true; });
  EXPECT_FALSE(stream.idle());
  std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(ran);
  gate.open();
  stream.synchronize();
  EXPECT_TRUE(ran);
  EXPECT_TRUE(stream.idle());
}

TEST(CpuStream, StartsItsThreadOnFirstWorkOnly) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer starts a thread of its own with the first one the test makes";
#endif
  const int before = thread_count();
  auto stream = std::make_unique<CpuStream>();
  EXPECT_EQ(thread_count(), before);
  stream->enqueue([] {});
  stream->synchronize();
  EXPECT_EQ(thread_count(), before + 1);
  stream.reset();
  // A joined thread can linger in /proc for a moment while the kernel reaps it.
  const auto deadline = std::chrono::steady_clock::now() + 2s;
  while (thread_count() != before && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(thread_count(), before);
}

TEST(CpuStream, DestructionRunsTheWorkStillQueued) {
  std::atomic<int> done{0};
  Gate gate;
  {
    CpuStream stream;
    stream.enqueue(gate.task());
    for (int i = 0; i < 100; ++i) stream.enqueue([&] { ++done; });
    gate.open_after(20ms);
  }
  EXPECT_EQ(done, 100);
}

TEST(CpuStream, SynchronizeOfAnUnusedStreamReturnsAtOnce) {
  CpuStream stream;
  stream.synchronize();
  EXPECT_TRUE(stream.idle());
}

TEST(CpuStream, CaptureRecordsSubmittedWorkInsteadOfRunningIt) {
  CpuStream stream;
  int runs = 0;
  stream.begin_capture();
  EXPECT_TRUE(stream.capturing());
  stream.submit_task([&] { ++runs; });
  stream.submit_task([&] { runs *= 10; });
  stream.synchronize();
  EXPECT_EQ(runs, 0);
  EXPECT_TRUE(stream.idle());

  const auto commands = stream.end_capture();
  EXPECT_FALSE(stream.capturing());
  ASSERT_EQ(commands.size(), 2u);
  for (const auto& command : commands) command(stream);
  stream.synchronize();
  EXPECT_EQ(runs, 10);
}

TEST(CpuStream, CaptureMisuseIsInvalidArgument) {
  CpuStream stream;
  EXPECT_EQ(status_of([&] { stream.end_capture(); }), OMNIRT_STATUS_INVALID_ARGUMENT);
  stream.begin_capture();
  EXPECT_EQ(status_of([&] { stream.begin_capture(); }), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(stream.end_capture().empty());
}

}  // namespace
}  // namespace omnirt::cpu
