// Graph capture on the cpu backend: captured calls do not run; a launch replays
// them on the launch stream, as often as asked.
#include <gtest/gtest.h>

#include <vector>

#include "cpu_backend.h"
#include "test_support.h"

namespace omnirt::cpu {
namespace {

using testing::Gate;
using testing::status_of;
using Bytes = std::vector<unsigned char>;

class CpuGraphs : public ::testing::Test {
 protected:
  void SetUp() override {
    capturing_ = backend_.stream_create(0);
    replay_ = backend_.stream_create(0);
    event_ = backend_.event_create(0);
  }
  CpuBackend backend_;
  omnirt_stream* capturing_ = nullptr;
  omnirt_stream* replay_ = nullptr;
  omnirt_event* event_ = nullptr;
};

TEST_F(CpuGraphs, CapturedWorkRunsOnlyWhenLaunchedAndEveryTime) {
  Bytes src(4096, 1), dst(4096, 0);
  backend_.stream_begin_capture(capturing_);
  backend_.memset_async(dst.data(), 0xFF, dst.size(), capturing_);
  backend_.memcpy_async(dst.data(), src.data(), 1024, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, capturing_);
  backend_.event_record(event_, capturing_);
  omnirt_graph* graph = backend_.stream_end_capture(capturing_);

  backend_.device_synchronize(0);
  EXPECT_EQ(dst, Bytes(4096, 0));
  EXPECT_EQ(status_of([&] { backend_.event_elapsed_time(event_, event_); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);  // the record was captured, not made

  backend_.graph_launch(graph, replay_);
  backend_.event_synchronize(event_);
  EXPECT_EQ(dst[0], 1);
  EXPECT_EQ(dst[1024], 0xFF);
  EXPECT_EQ(backend_.event_elapsed_time(event_, event_), 0.0f);

  // A second launch copies what src holds then, on another stream.
  src.assign(4096, 9);
  backend_.graph_launch(graph, capturing_);
  backend_.stream_synchronize(capturing_);
  EXPECT_EQ(dst[0], 9);
  EXPECT_EQ(dst[1024], 0xFF);
  backend_.graph_destroy(graph);
}

TEST_F(CpuGraphs, LaunchIsOrderedAfterEarlierWorkOnTheStream) {
  Bytes dst(4096, 0);
  backend_.stream_begin_capture(capturing_);
  backend_.memset_async(dst.data(), 0x42, dst.size(), capturing_);
  omnirt_graph* graph = backend_.stream_end_capture(capturing_);

  Gate gate;
  backend_.resolve_stream(replay_)->enqueue(gate.task());
  backend_.graph_launch(graph, replay_);
  EXPECT_FALSE(backend_.stream_query(replay_));
  EXPECT_EQ(dst[0], 0);
  gate.open();
  backend_.stream_synchronize(replay_);
  EXPECT_EQ(dst, Bytes(4096, 0x42));
  backend_.graph_destroy(graph);
}

TEST_F(CpuGraphs, CapturedWaitWaitsForTheEventAsOfLaunch) {
  Bytes src(4096, 0), dst(4096, 0);
  backend_.stream_begin_capture(capturing_);
  backend_.stream_wait_event(capturing_, event_);
  backend_.memcpy_async(dst.data(), src.data(), dst.size(), OMNIRT_MEMCPY_DEVICE_TO_DEVICE,
                        capturing_);
  omnirt_graph* graph = backend_.stream_end_capture(capturing_);

  omnirt_stream* producer = backend_.stream_create(0);
  Gate gate;
  backend_.resolve_stream(producer)->enqueue(gate.task());
  backend_.memset_async(src.data(), 0x77, src.size(), producer);
  backend_.event_record(event_, producer);
  backend_.graph_launch(graph, replay_);
  EXPECT_FALSE(backend_.stream_query(replay_));
  gate.open();
  backend_.stream_synchronize(replay_);
  EXPECT_EQ(dst, Bytes(4096, 0x77));
  backend_.graph_destroy(graph);
}

TEST_F(CpuGraphs, StreamOrderedAllocationCannotBeCaptured) {
  void* ptr = backend_.malloc_device(0, 64);
  backend_.stream_begin_capture(capturing_);
  EXPECT_EQ(status_of([&] { backend_.malloc_async(64, capturing_); }),
            OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(status_of([&] { backend_.free_async(ptr, capturing_); }),
            OMNIRT_STATUS_NOT_SUPPORTED);
  backend_.graph_destroy(backend_.stream_end_capture(capturing_));
  backend_.free_device(0, ptr);
}

TEST_F(CpuGraphs, MisuseIsInvalidArgument) {
  EXPECT_EQ(status_of([&] { backend_.stream_begin_capture(nullptr); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.stream_end_capture(nullptr); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.stream_end_capture(capturing_); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  backend_.stream_begin_capture(capturing_);
  EXPECT_EQ(status_of([&] { backend_.stream_begin_capture(capturing_); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  omnirt_graph* graph = backend_.stream_end_capture(capturing_);
  backend_.graph_destroy(graph);
  EXPECT_EQ(status_of([&] { backend_.graph_launch(graph, replay_); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.graph_destroy(graph); }), OMNIRT_STATUS_INVALID_ARGUMENT);
  backend_.graph_destroy(nullptr);
}

}  // namespace
}  // namespace omnirt::cpu
