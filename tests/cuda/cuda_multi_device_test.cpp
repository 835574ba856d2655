// Multi-device selection (issue 6) of the cuda plugin, through its vtable:
// memory, streams, events, graphs, peer copies and the named ops on device 1
// (and every device), under each allocator. Every call names its device, or a
// pointer, stream or event that carries one, and must run there whatever
// device the calling thread has current, leave that current device as it was
// (PLUGIN_RULES 11), keep each device's books apart, and reject a mix of
// devices it cannot serve. One GPU shows none of that: each test needs two
// CUDA devices and skips with the reason otherwise (where CUDA cannot run,
// the plugin's own reason). The caller's current device and where memory
// lives are read through the libcudart the plugin loaded (caller_cuda.h).
// Kernels and the engine against libtorch on two devices:
// cuda_multi_device_torch_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "caller_cuda.h"
#include "cuda_plugin.h"

namespace omnirt::cuda_test {
namespace {

class CudaMultiDeviceTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    plugin_ = std::make_unique<CudaPlugin>(CudaPlugin::Options{{"allocator", GetParam()}});
    ASSERT_EQ(plugin_->create_status(), OMNIRT_STATUS_OK) << last_error();
    std::string reason;
    if (!plugin_->available(&reason) || plugin_->device_count() == 0) {
      plugin_->available(&reason);  // after the first use: the runtime's own diagnosis
      GTEST_SKIP() << "CUDA cannot run here: " << reason;
    }
    devices_ = plugin_->device_count();
    if (devices_ < 2) {
      GTEST_SKIP() << "needs two CUDA devices, " << devices_
                   << " visible (check CUDA_VISIBLE_DEVICES)";
    }
    const std::string why = caller_.open();  // the plugin has loaded the runtime by now
    ASSERT_TRUE(why.empty()) << why;
  }
  const omnirt_backend_vtable& vt() const { return *plugin_->vt(); }
  omnirt_backend_state* st() const { return plugin_->state(); }

  std::vector<uint8_t> read(const void* device_ptr, size_t size) {
    std::vector<uint8_t> host(size);
    EXPECT_EQ(vt().memcpy_sync(st(), host.data(), device_ptr, size, OMNIRT_MEMCPY_DEVICE_TO_HOST),
              OMNIRT_STATUS_OK)
        << last_error();
    return host;
  }
  omnirt_memory_stats stats(int32_t device) {
    omnirt_memory_stats s{};
    s.struct_size = sizeof s;
    EXPECT_EQ(vt().memory_stats(st(), device, &s), OMNIRT_STATUS_OK) << last_error();
    return s;
  }
  // A device other than `d`.
  int32_t other(int32_t d) const { return (d + 1) % devices_; }

  std::unique_ptr<CudaPlugin> plugin_;
  CallerCuda caller_;
  int32_t devices_ = 0;
};

TEST_P(CudaMultiDeviceTest, AllocatesOnEachDeviceWithItsOwnStats) {
  constexpr size_t kSize = 1000;
  for (int32_t d = 0; d < devices_; ++d) {
    SCOPED_TRACE("device " + std::to_string(d));
    std::vector<omnirt_memory_stats> before;
    for (int32_t e = 0; e < devices_; ++e) before.push_back(stats(e));
    void* p = nullptr;
    ASSERT_EQ(vt().malloc_device(st(), d, kSize, &p), OMNIRT_STATUS_OK) << last_error();
    EXPECT_EQ(caller_.device_of(p), d) << "the memory lives on the device asked for";
    ASSERT_EQ(vt().memset_sync(st(), p, 0x40 + d, kSize), OMNIRT_STATUS_OK) << last_error();
    EXPECT_EQ(read(p, kSize), std::vector<uint8_t>(kSize, uint8_t(0x40 + d)));
    for (int32_t e = 0; e < devices_; ++e) {
      const omnirt_memory_stats now = stats(e);
      EXPECT_EQ(now.allocated_bytes, before[size_t(e)].allocated_bytes + (e == d ? kSize : 0))
          << "allocated_bytes of device " << e;
      EXPECT_EQ(now.alloc_count, before[size_t(e)].alloc_count + (e == d ? 1 : 0))
          << "alloc_count of device " << e;
    }
    EXPECT_EQ(vt().free_device(st(), other(d), p), OMNIRT_STATUS_INVALID_ARGUMENT)
        << "a pointer of device " << d << " freed as device " << other(d);
    EXPECT_EQ(stats(other(d)).allocated_bytes, before[size_t(other(d))].allocated_bytes);
    ASSERT_EQ(vt().free_device(st(), d, p), OMNIRT_STATUS_OK) << last_error();
    EXPECT_EQ(stats(d).allocated_bytes, before[size_t(d)].allocated_bytes);
  }
}

TEST_P(CudaMultiDeviceTest, RunsStreamOrderedWorkOnEachDevice) {
  constexpr size_t kSize = 1 << 20;
  void* pinned = nullptr;
  ASSERT_EQ(vt().malloc_host(st(), kSize, &pinned), OMNIRT_STATUS_OK) << last_error();
  std::vector<uint8_t> pattern(kSize);
  std::iota(pattern.begin(), pattern.end(), uint8_t{3});
  std::memcpy(pinned, pattern.data(), kSize);
  for (int32_t d = devices_ - 1; d >= 0; --d) {  // the last device first, then the others
    SCOPED_TRACE("device " + std::to_string(d));
    const uint64_t allocated = stats(d).allocated_bytes;
    omnirt_stream* stream = nullptr;
    ASSERT_EQ(vt().stream_create(st(), d, &stream), OMNIRT_STATUS_OK) << last_error();
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(vt().malloc_async(st(), kSize, stream, &a), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().malloc_async(st(), kSize, stream, &b), OMNIRT_STATUS_OK) << last_error();
    EXPECT_EQ(caller_.device_of(a), d) << "malloc_async allocates on the stream's device";
    EXPECT_EQ(stats(d).allocated_bytes, allocated + 2 * kSize);
    ASSERT_EQ(vt().memset_async(st(), a, 0x11, kSize, stream), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().memcpy_async(st(), a, pinned, 64, OMNIRT_MEMCPY_HOST_TO_DEVICE, stream),
              OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().memcpy_async(st(), b, a, kSize, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, stream),
              OMNIRT_STATUS_OK);
    std::vector<uint8_t> back(kSize);
    ASSERT_EQ(vt().memcpy_async(st(), back.data(), b, kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST, stream),
              OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().stream_synchronize(st(), stream), OMNIRT_STATUS_OK) << last_error();
    EXPECT_EQ(vt().stream_query(st(), stream), OMNIRT_STATUS_OK);
    EXPECT_TRUE(std::equal(back.begin(), back.begin() + 64, pattern.begin()));
    EXPECT_TRUE(std::all_of(back.begin() + 64, back.end(), [](uint8_t v) { return v == 0x11; }));
    ASSERT_EQ(vt().free_async(st(), a, stream), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().free_async(st(), b, stream), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().stream_destroy(st(), stream), OMNIRT_STATUS_OK) << last_error();
    EXPECT_EQ(stats(d).allocated_bytes, allocated);
    EXPECT_EQ(vt().device_synchronize(st(), d), OMNIRT_STATUS_OK) << last_error();
  }
  EXPECT_EQ(vt().free_host(st(), pinned), OMNIRT_STATUS_OK);
}

TEST_P(CudaMultiDeviceTest, TimesEventsOnEachDevice) {
  constexpr size_t kSize = 64 << 20;
  std::vector<omnirt_event*> ends;
  for (int32_t d = devices_ - 1; d >= 0; --d) {
    SCOPED_TRACE("device " + std::to_string(d));
    omnirt_stream* stream = nullptr;
    omnirt_event *start = nullptr, *end = nullptr;
    ASSERT_EQ(vt().stream_create(st(), d, &stream), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().event_create(st(), d, &start), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().event_create(st(), d, &end), OMNIRT_STATUS_OK) << last_error();
    void* buffer = nullptr;
    ASSERT_EQ(vt().malloc_async(st(), kSize, stream, &buffer), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().event_record(st(), start, stream), OMNIRT_STATUS_OK) << last_error();
    for (int i = 0; i < 10; ++i) {
      ASSERT_EQ(vt().memset_async(st(), buffer, i, kSize, stream), OMNIRT_STATUS_OK);
    }
    ASSERT_EQ(vt().event_record(st(), end, stream), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().event_synchronize(st(), end), OMNIRT_STATUS_OK) << last_error();
    EXPECT_EQ(vt().event_query(st(), end), OMNIRT_STATUS_OK);
    float ms = -1;
    ASSERT_EQ(vt().event_elapsed_time(st(), start, end, &ms), OMNIRT_STATUS_OK) << last_error();
    EXPECT_GT(ms, 0.f);
    // An event belongs to its device: not recorded on another device's stream.
    omnirt_stream* elsewhere = nullptr;
    ASSERT_EQ(vt().stream_create(st(), other(d), &elsewhere), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().event_record(st(), start, elsewhere), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("device"), std::string::npos) << last_error();
    ASSERT_EQ(vt().free_async(st(), buffer, stream), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().event_destroy(st(), start), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().stream_destroy(st(), stream), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().stream_destroy(st(), elsewhere), OMNIRT_STATUS_OK);
    ends.push_back(end);
  }
  // Two devices' clocks do not compare: timing across them is refused.
  float ms = -1;
  EXPECT_EQ(vt().event_elapsed_time(st(), ends[0], ends[1], &ms), OMNIRT_STATUS_INVALID_ARGUMENT);
  for (omnirt_event* e : ends) EXPECT_EQ(vt().event_destroy(st(), e), OMNIRT_STATUS_OK);
}

// A stream of one device waits for an event of another, then copies from the
// other device's buffer: it must see the last of the memsets before the event.
TEST_P(CudaMultiDeviceTest, StreamWaitsForAnEventOfAnotherDevice) {
  constexpr size_t kSize = 64 << 20;
  for (int32_t from = 0; from < devices_; ++from) {
    const int32_t to = other(from);
    SCOPED_TRACE("event on device " + std::to_string(from) + ", stream on " + std::to_string(to));
    omnirt_stream *producer = nullptr, *consumer = nullptr;
    ASSERT_EQ(vt().stream_create(st(), from, &producer), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().stream_create(st(), to, &consumer), OMNIRT_STATUS_OK) << last_error();
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(vt().malloc_async(st(), kSize, producer, &a), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().malloc_async(st(), kSize, consumer, &b), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().memset_async(st(), b, 0xFF, kSize, consumer), OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().stream_synchronize(st(), consumer), OMNIRT_STATUS_OK);
    omnirt_event* done = nullptr;
    ASSERT_EQ(vt().event_create(st(), from, &done), OMNIRT_STATUS_OK) << last_error();
    for (int i = 0; i < 20; ++i) {
      ASSERT_EQ(vt().memset_async(st(), a, i, kSize, producer), OMNIRT_STATUS_OK);
    }
    ASSERT_EQ(vt().event_record(st(), done, producer), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().stream_wait_event(st(), consumer, done), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().memcpy_async(st(), b, a, kSize, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, consumer),
              OMNIRT_STATUS_OK)
        << last_error();
    uint8_t last = 0;
    ASSERT_EQ(vt().memcpy_async(st(), &last, static_cast<uint8_t*>(b) + kSize - 1, 1,
                                OMNIRT_MEMCPY_DEVICE_TO_HOST, consumer),
              OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().stream_synchronize(st(), consumer), OMNIRT_STATUS_OK) << last_error();
    EXPECT_EQ(last, 19);
    ASSERT_EQ(vt().free_async(st(), a, producer), OMNIRT_STATUS_OK);  // its reader is done
    ASSERT_EQ(vt().free_async(st(), b, consumer), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().event_destroy(st(), done), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().stream_destroy(st(), producer), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().stream_destroy(st(), consumer), OMNIRT_STATUS_OK);
  }
}

// Peer copies with memcpy_sync and memcpy_async, data checked each way. The
// sources are written with calls complete on return (pinned uploads, synced
// streams), so that only the peer copies are under test here.
TEST_P(CudaMultiDeviceTest, CopiesBetweenDevicesBothWays) {
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(vt().get_capabilities(st(), &caps), OMNIRT_STATUS_OK);
  ASSERT_TRUE(caps.features & OMNIRT_FEATURE_PEER_COPY);
  constexpr size_t kSize = 4 << 20;
  void* pinned = nullptr;
  ASSERT_EQ(vt().malloc_host(st(), kSize, &pinned), OMNIRT_STATUS_OK) << last_error();
  std::vector<uint8_t> pattern(kSize);
  std::iota(pattern.begin(), pattern.end(), uint8_t{9});
  std::memcpy(pinned, pattern.data(), kSize);
  for (int32_t d = 1; d < devices_; ++d) {
    SCOPED_TRACE("devices 0 and " + std::to_string(d));
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(vt().malloc_device(st(), 0, kSize, &a), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().malloc_device(st(), d, kSize, &b), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().memcpy_sync(st(), a, pinned, kSize, OMNIRT_MEMCPY_HOST_TO_DEVICE),
              OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().memcpy_sync(st(), b, a, kSize, OMNIRT_MEMCPY_DEVICE_TO_DEVICE), OMNIRT_STATUS_OK)
        << last_error();
    EXPECT_TRUE(read(b, kSize) == pattern) << "memcpy_sync device 0 -> " << d;
    ASSERT_EQ(vt().memcpy_sync(st(), b, pinned, kSize / 2, OMNIRT_MEMCPY_HOST_TO_DEVICE),
              OMNIRT_STATUS_OK);  // first half: the pattern's first half, twice
    ASSERT_EQ(vt().memcpy_sync(st(), static_cast<uint8_t*>(b) + kSize / 2, pinned, kSize / 2,
                               OMNIRT_MEMCPY_HOST_TO_DEVICE),
              OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().memcpy_sync(st(), a, b, kSize, OMNIRT_MEMCPY_DEVICE_TO_DEVICE), OMNIRT_STATUS_OK)
        << last_error();
    std::vector<uint8_t> halves(pattern.begin(), pattern.begin() + kSize / 2);
    halves.insert(halves.end(), pattern.begin(), pattern.begin() + kSize / 2);
    EXPECT_TRUE(read(a, kSize) == halves) << "memcpy_sync device " << d << " -> 0";
    // Async, on a stream of either side.
    for (int32_t side : {int32_t{0}, d}) {
      omnirt_stream* stream = nullptr;
      ASSERT_EQ(vt().stream_create(st(), side, &stream), OMNIRT_STATUS_OK);
      ASSERT_EQ(vt().memset_async(st(), b, 0, kSize, nullptr), OMNIRT_STATUS_OK);
      ASSERT_EQ(vt().device_synchronize(st(), d), OMNIRT_STATUS_OK);
      ASSERT_EQ(vt().memcpy_sync(st(), a, pinned, kSize, OMNIRT_MEMCPY_HOST_TO_DEVICE),
                OMNIRT_STATUS_OK);
      ASSERT_EQ(vt().memcpy_async(st(), b, a, kSize, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, stream),
                OMNIRT_STATUS_OK)
          << last_error();
      ASSERT_EQ(vt().stream_synchronize(st(), stream), OMNIRT_STATUS_OK) << last_error();
      EXPECT_TRUE(read(b, kSize) == pattern) << "memcpy_async 0 -> " << d << " on a stream of "
                                              << side;
      EXPECT_EQ(vt().stream_destroy(st(), stream), OMNIRT_STATUS_OK);
    }
    EXPECT_EQ(vt().free_device(st(), 0, a), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().free_device(st(), d, b), OMNIRT_STATUS_OK);
  }
  EXPECT_EQ(vt().free_host(st(), pinned), OMNIRT_STATUS_OK);
}

// memcpy_sync "returns when the copy is complete" (backend.h), and a _sync
// memset is read as done too: a stream of the target device that is not
// ordered after its default stream (they are non-blocking) must see the
// bytes. With one device nothing shows this (every sync call and read share
// the default stream); across devices nothing else orders a reader after it.
TEST_P(CudaMultiDeviceTest, SyncCopiesAndSetsAreCompleteWhenTheyReturn) {
  constexpr size_t kSize = 256 << 20, kTail = 4096;
  const std::vector<uint8_t> pageable(kSize, 0x3C);
  for (int32_t from = 0; from < devices_; ++from) {
    const int32_t to = other(from);
    SCOPED_TRACE("device " + std::to_string(from) + " -> " + std::to_string(to));
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(vt().malloc_device(st(), from, kSize, &a), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().malloc_device(st(), to, kSize, &b), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().memset_sync(st(), a, 0x5A, kSize), OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().memset_sync(st(), b, 0, kSize), OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().device_synchronize(st(), from), OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().device_synchronize(st(), to), OMNIRT_STATUS_OK);
    omnirt_stream* reader = nullptr;
    ASSERT_EQ(vt().stream_create(st(), to, &reader), OMNIRT_STATUS_OK);
    auto tail_of_b = [&] {
      std::vector<uint8_t> tail(kTail);
      EXPECT_EQ(vt().memcpy_async(st(), tail.data(), static_cast<uint8_t*>(b) + kSize - kTail,
                                  kTail, OMNIRT_MEMCPY_DEVICE_TO_HOST, reader),
                OMNIRT_STATUS_OK);
      EXPECT_EQ(vt().stream_synchronize(st(), reader), OMNIRT_STATUS_OK);
      return tail;
    };
    ASSERT_EQ(vt().memcpy_sync(st(), b, a, kSize, OMNIRT_MEMCPY_DEVICE_TO_DEVICE), OMNIRT_STATUS_OK)
        << last_error();
    EXPECT_TRUE(tail_of_b() == std::vector<uint8_t>(kTail, 0x5A))
        << "memcpy_sync returned before its device-to-device (peer) copy was done";
    ASSERT_EQ(vt().memcpy_sync(st(), b, pageable.data(), kSize, OMNIRT_MEMCPY_HOST_TO_DEVICE),
              OMNIRT_STATUS_OK);
    EXPECT_TRUE(tail_of_b() == std::vector<uint8_t>(kTail, 0x3C))
        << "memcpy_sync returned before its copy from pageable host memory was done";
    ASSERT_EQ(vt().memset_sync(st(), b, 0x77, kSize), OMNIRT_STATUS_OK);
    EXPECT_TRUE(tail_of_b() == std::vector<uint8_t>(kTail, 0x77))
        << "memset_sync returned before the memset was done";
    EXPECT_EQ(vt().stream_destroy(st(), reader), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().free_device(st(), from, a), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().free_device(st(), to, b), OMNIRT_STATUS_OK);
  }
}

TEST_P(CudaMultiDeviceTest, CapturesAndReplaysAGraphOnEachDevice) {
  for (int32_t d = devices_ - 1; d >= 0; --d) {
    SCOPED_TRACE("device " + std::to_string(d));
    omnirt_stream *stream = nullptr, *elsewhere = nullptr;
    ASSERT_EQ(vt().stream_create(st(), d, &stream), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().stream_create(st(), other(d), &elsewhere), OMNIRT_STATUS_OK) << last_error();
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(vt().malloc_device(st(), d, 4096, &a), OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().malloc_device(st(), d, 4096, &b), OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().memset_sync(st(), b, 0, 4096), OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().device_synchronize(st(), d), OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().stream_begin_capture(st(), stream), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().memset_async(st(), a, 0x30 + d, 4096, stream), OMNIRT_STATUS_OK);
    ASSERT_EQ(vt().memcpy_async(st(), b, a, 4096, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, stream),
              OMNIRT_STATUS_OK);
    omnirt_graph* graph = nullptr;
    ASSERT_EQ(vt().stream_end_capture(st(), stream, &graph), OMNIRT_STATUS_OK) << last_error();
    EXPECT_EQ(vt().graph_launch(st(), graph, elsewhere), OMNIRT_STATUS_INVALID_ARGUMENT)
        << "a graph of device " << d << " launched on a stream of device " << other(d);
    ASSERT_EQ(vt().graph_launch(st(), graph, stream), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().stream_synchronize(st(), stream), OMNIRT_STATUS_OK);
    EXPECT_EQ(read(b, 4096), std::vector<uint8_t>(4096, uint8_t(0x30 + d)));
    EXPECT_EQ(vt().graph_destroy(st(), graph), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().free_device(st(), d, a), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().free_device(st(), d, b), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().stream_destroy(st(), stream), OMNIRT_STATUS_OK);
    EXPECT_EQ(vt().stream_destroy(st(), elsewhere), OMNIRT_STATUS_OK);
  }
}

TEST_P(CudaMultiDeviceTest, DescribesAndQueriesEachDeviceAndNoMore) {
  for (int32_t d = 0; d < devices_; ++d) {
    SCOPED_TRACE("device " + std::to_string(d));
    EXPECT_EQ(vt().device_synchronize(st(), d), OMNIRT_STATUS_OK) << last_error();
    size_t free_bytes = 0, total_bytes = 0;
    ASSERT_EQ(vt().mem_get_info(st(), d, &free_bytes, &total_bytes), OMNIRT_STATUS_OK);
    EXPECT_GT(total_bytes, 0u);
    EXPECT_LE(free_bytes, total_bytes);
    omnirt_device_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(vt().get_device_info(st(), d, &info), OMNIRT_STATUS_OK) << last_error();
    EXPECT_EQ(info.index, d);
    EXPECT_GT(std::strlen(info.name), 0u);
    EXPECT_EQ(std::string(info.arch).rfind("sm_", 0), 0u) << info.arch;
    EXPECT_EQ(info.compute_units, caller_.sm_count(d)) << "the SMs of device " << d;
    EXPECT_EQ(info.total_memory_bytes, total_bytes) << "the memory of device " << d;
  }
  for (int32_t bad : {devices_, -1}) {
    SCOPED_TRACE("device " + std::to_string(bad));
    omnirt_device_info info{};
    info.struct_size = sizeof info;
    EXPECT_EQ(vt().get_device_info(st(), bad, &info), OMNIRT_STATUS_OUT_OF_RANGE);
    void* p = nullptr;
    EXPECT_EQ(vt().malloc_device(st(), bad, 256, &p), OMNIRT_STATUS_OUT_OF_RANGE);
    EXPECT_EQ(vt().free_device(st(), bad, reinterpret_cast<void*>(uintptr_t{4096})),
              OMNIRT_STATUS_OUT_OF_RANGE);
    omnirt_stream* stream = nullptr;
    EXPECT_EQ(vt().stream_create(st(), bad, &stream), OMNIRT_STATUS_OUT_OF_RANGE);
    omnirt_event* event = nullptr;
    EXPECT_EQ(vt().event_create(st(), bad, &event), OMNIRT_STATUS_OUT_OF_RANGE);
    size_t free_bytes = 0, total_bytes = 0;
    EXPECT_EQ(vt().mem_get_info(st(), bad, &free_bytes, &total_bytes), OMNIRT_STATUS_OUT_OF_RANGE);
    EXPECT_EQ(vt().device_synchronize(st(), bad), OMNIRT_STATUS_OUT_OF_RANGE);
    omnirt_memory_stats s{};
    s.struct_size = sizeof s;
    EXPECT_EQ(vt().memory_stats(st(), bad, &s), OMNIRT_STATUS_OUT_OF_RANGE);
    EXPECT_EQ(vt().reset_memory_stats(st(), bad), OMNIRT_STATUS_OUT_OF_RANGE);
  }
}

// Every call that targets another device than the caller's current one
// leaves the caller's current device as it was, failing calls included.
TEST_P(CudaMultiDeviceTest, LeavesTheCallersCurrentDeviceAlone) {
  for (int32_t current = 0; current < devices_; ++current) {
    const int32_t d = other(current);
    SCOPED_TRACE("current device " + std::to_string(current) + ", calls on " + std::to_string(d));
    ASSERT_TRUE(caller_.set_device(current));
    // `status` is what `call` returned; true when it was `expected`.
    auto check = [&](omnirt_status status, const char* call,
                     omnirt_status expected = OMNIRT_STATUS_OK) {
      EXPECT_EQ(status, expected) << call << ": " << last_error();
      EXPECT_EQ(caller_.device(), current) << call << " changed the caller's current device";
      return status == expected;
    };
    void *p = nullptr, *q = nullptr, *huge = nullptr;
    omnirt_stream* stream = nullptr;
    omnirt_event* event = nullptr;
    omnirt_graph* graph = nullptr;
    std::vector<uint8_t> host(4096);
    size_t free_bytes = 0, total_bytes = 0;
    omnirt_device_info info{};
    info.struct_size = sizeof info;
    omnirt_memory_stats stats{};
    stats.struct_size = sizeof stats;
    ASSERT_TRUE(check(vt().malloc_device(st(), d, 4096, &p), "malloc_device"));
    ASSERT_TRUE(check(vt().memset_sync(st(), p, 6, 4096), "memset_sync"));
    ASSERT_TRUE(check(vt().memset_async(st(), p, 7, 4096, nullptr), "memset_async (no stream)"));
    ASSERT_TRUE(check(vt().memcpy_sync(st(), host.data(), p, 4096, OMNIRT_MEMCPY_DEVICE_TO_HOST),
                      "memcpy_sync"));
    EXPECT_EQ(host, std::vector<uint8_t>(4096, 7));
    ASSERT_TRUE(check(vt().stream_create(st(), d, &stream), "stream_create"));
    ASSERT_TRUE(check(vt().malloc_async(st(), 4096, stream, &q), "malloc_async"));
    ASSERT_TRUE(check(vt().memset_async(st(), q, 1, 4096, stream), "memset_async"));
    ASSERT_TRUE(check(vt().memcpy_async(st(), q, p, 4096, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, stream),
                      "memcpy_async"));
    ASSERT_TRUE(check(vt().event_create(st(), d, &event), "event_create"));
    ASSERT_TRUE(check(vt().event_record(st(), event, stream), "event_record"));
    ASSERT_TRUE(check(vt().stream_wait_event(st(), stream, event), "stream_wait_event"));
    ASSERT_TRUE(check(vt().event_synchronize(st(), event), "event_synchronize"));
    check(vt().event_query(st(), event), "event_query");
    ASSERT_TRUE(check(vt().stream_synchronize(st(), stream), "stream_synchronize"));
    check(vt().stream_query(st(), stream), "stream_query");
    ASSERT_TRUE(check(vt().stream_begin_capture(st(), stream), "stream_begin_capture"));
    ASSERT_TRUE(check(vt().memset_async(st(), q, 2, 4096, stream), "memset_async (captured)"));
    ASSERT_TRUE(check(vt().stream_end_capture(st(), stream, &graph), "stream_end_capture"));
    ASSERT_TRUE(check(vt().graph_launch(st(), graph, stream), "graph_launch"));
    ASSERT_TRUE(check(vt().graph_destroy(st(), graph), "graph_destroy"));
    ASSERT_TRUE(check(vt().mem_get_info(st(), d, &free_bytes, &total_bytes), "mem_get_info"));
    ASSERT_TRUE(check(vt().get_device_info(st(), d, &info), "get_device_info"));
    ASSERT_TRUE(check(vt().memory_stats(st(), d, &stats), "memory_stats"));
    ASSERT_TRUE(check(vt().device_synchronize(st(), d), "device_synchronize"));
    check(vt().malloc_device(st(), d, total_bytes * 2, &huge), "malloc_device (too large)",
          OMNIRT_STATUS_OUT_OF_MEMORY);
    ASSERT_TRUE(check(vt().free_async(st(), q, stream), "free_async"));
    ASSERT_TRUE(check(vt().free_device(st(), d, p), "free_device"));
    ASSERT_TRUE(check(vt().reset_memory_stats(st(), d), "reset_memory_stats"));
    ASSERT_TRUE(check(vt().event_destroy(st(), event), "event_destroy"));
    ASSERT_TRUE(check(vt().stream_destroy(st(), stream), "stream_destroy"));
  }
}

// A thread that never chose a device and works on device 1 only: the plugin
// must not make a primary context (hundreds of MB) on device 0 behind its back.
// Run alone (ctest does): another test in the process may have made one.
TEST_P(CudaMultiDeviceTest, UsingOneDeviceMakesNoContextOnAnother) {
  if (caller_.has_context(0) < 0) GTEST_SKIP() << "cuDevicePrimaryCtxGetState not reachable";
  if (caller_.has_context(0) == 1) {
    GTEST_SKIP() << "device 0 already has a context in this process (run this test on its own)";
  }
  // A thread that chose device 1 and works there: allocators (and the async
  // allocator's pools) are made per device on first use, and the guard has
  // nothing to restore. (A thread that never chose a device reads as device 0,
  // and restoring that makes device 0's context: plugins/cuda/README.md.)
  std::thread([&] {
    ASSERT_TRUE(caller_.set_device(1));
    void* p = nullptr;
    ASSERT_EQ(vt().malloc_device(st(), 1, 1 << 20, &p), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().memset_sync(st(), p, 1, 1 << 20), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().free_device(st(), 1, p), OMNIRT_STATUS_OK) << last_error();
    EXPECT_EQ(caller_.device(), 1);
  }).join();
  EXPECT_EQ(caller_.has_context(1), 1);
  EXPECT_EQ(caller_.has_context(0), 0) << "using device 1 only made a context on device 0";
}

// Threads on different devices at once: each device's allocator and each
// thread's current device stay their own.
TEST_P(CudaMultiDeviceTest, ThreadsOnDifferentDevicesRunConcurrently) {
  std::vector<std::thread> threads;
  for (int32_t d = 0; d < devices_; ++d) {
    threads.emplace_back([&, d] {
      const int32_t current = other(d);
      ASSERT_TRUE(caller_.set_device(current));
      omnirt_stream* stream = nullptr;
      ASSERT_EQ(vt().stream_create(st(), d, &stream), OMNIRT_STATUS_OK) << last_error();
      for (int i = 0; i < 200; ++i) {
        void *p = nullptr, *q = nullptr;
        ASSERT_EQ(vt().malloc_device(st(), d, 4096 + i, &p), OMNIRT_STATUS_OK) << last_error();
        ASSERT_EQ(vt().malloc_async(st(), 4096, stream, &q), OMNIRT_STATUS_OK) << last_error();
        ASSERT_EQ(vt().memset_async(st(), q, i, 4096, stream), OMNIRT_STATUS_OK);
        ASSERT_EQ(vt().memcpy_async(st(), p, q, 4096, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, stream),
                  OMNIRT_STATUS_OK);
        uint8_t value = 0;
        ASSERT_EQ(vt().memcpy_async(st(), &value, static_cast<uint8_t*>(p) + 4095, 1,
                                    OMNIRT_MEMCPY_DEVICE_TO_HOST, stream),
                  OMNIRT_STATUS_OK);
        ASSERT_EQ(vt().stream_synchronize(st(), stream), OMNIRT_STATUS_OK);
        ASSERT_EQ(value, uint8_t(i)) << "device " << d << " round " << i;
        ASSERT_EQ(vt().free_async(st(), q, stream), OMNIRT_STATUS_OK);
        ASSERT_EQ(vt().free_device(st(), d, p), OMNIRT_STATUS_OK) << last_error();
      }
      EXPECT_EQ(vt().stream_destroy(st(), stream), OMNIRT_STATUS_OK);
      EXPECT_EQ(caller_.device(), current) << "thread of device " << d;
    });
  }
  for (std::thread& t : threads) t.join();
  for (int32_t d = 0; d < devices_; ++d) EXPECT_EQ(stats(d).allocated_bytes, 0u) << d;
}

// --- Named ops on every device, in f32 (the torch test covers f16/bf16) ----

// A contiguous f32 tensor on `device`, uploaded from `values`.
class DeviceTensor {
 public:
  DeviceTensor(const omnirt_backend_vtable& vt, omnirt_backend_state* st, int32_t device,
               std::vector<int64_t> shape, const std::vector<float>& values)
      : vt_(vt), st_(st), device_(device), shape_(std::move(shape)), size_(values.size()) {
    EXPECT_EQ(vt_.malloc_device(st_, device_, size_ * sizeof(float), &data_), OMNIRT_STATUS_OK)
        << last_error();
    EXPECT_EQ(vt_.memcpy_sync(st_, data_, values.data(), size_ * sizeof(float),
                              OMNIRT_MEMCPY_HOST_TO_DEVICE),
              OMNIRT_STATUS_OK);
  }
  ~DeviceTensor() { vt_.free_device(st_, device_, data_); }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  DLTensor dl() {
    DLTensor t{};
    t.data = data_;
    t.device = {kDLCUDA, device_};
    t.ndim = int32_t(shape_.size());
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape_.data();
    return t;
  }
  std::vector<float> values() {
    std::vector<float> out(size_);
    EXPECT_EQ(vt_.memcpy_sync(st_, out.data(), data_, size_ * sizeof(float),
                              OMNIRT_MEMCPY_DEVICE_TO_HOST),
              OMNIRT_STATUS_OK);
    return out;
  }

 private:
  const omnirt_backend_vtable& vt_;
  omnirt_backend_state* st_;
  int32_t device_;
  std::vector<int64_t> shape_;
  size_t size_;
  void* data_ = nullptr;
};

std::vector<float> numbers(size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(float(i * 7 + seed)) * 3.f;
  return v;
}

// Each op on each device (the last first, so that the kernels are first
// loaded with another device than 0 current), with and without a stream of
// that device: bitwise the results of device 0, and rms_norm as computed here.
TEST_P(CudaMultiDeviceTest, NamedOpsGiveTheSameResultsOnEachDevice) {
  constexpr int64_t kRows = 4, kCols = 1000;
  const std::vector<float> x = numbers(kRows * kCols, 1), b = numbers(kRows * kCols, 2),
                           w = numbers(kCols, 3), bias = numbers(kCols, 4);
  struct Case {
    const char* op;
    int inputs;  // x, then b or w, then bias
    bool second_is_b;
  };
  const Case cases[] = {{"rms_norm", 2, false}, {"layer_norm", 3, false}, {"softmax", 1, false},
                        {"geglu", 2, true}};
  // results[device][case]
  std::vector<std::vector<std::vector<float>>> results(static_cast<size_t>(devices_));
  for (int32_t d = devices_ - 1; d >= 0; --d) {
    SCOPED_TRACE("device " + std::to_string(d));
    omnirt_stream* stream = nullptr;
    ASSERT_EQ(vt().stream_create(st(), d, &stream), OMNIRT_STATUS_OK);
    for (const Case& c : cases) {
      SCOPED_TRACE(c.op);
      DeviceTensor tx(vt(), st(), d, {kRows, kCols}, x);
      const std::vector<int64_t> shape2 =
          c.second_is_b ? std::vector<int64_t>{kRows, kCols} : std::vector<int64_t>{kCols};
      DeviceTensor t2(vt(), st(), d, shape2, c.second_is_b ? b : w);
      DeviceTensor t3(vt(), st(), d, {kCols}, bias);
      DeviceTensor out(vt(), st(), d, {kRows, kCols}, std::vector<float>(x.size()));
      DLTensor in[3] = {tx.dl(), t2.dl(), t3.dl()};
      DLTensor dl_out = out.dl();
      for (omnirt_stream* s : {static_cast<omnirt_stream*>(nullptr), stream}) {
        ASSERT_EQ(vt().op_run(st(), c.op, in, size_t(c.inputs), &dl_out, 1, nullptr, 0, s),
                  OMNIRT_STATUS_OK)
            << last_error();
        if (s != nullptr) {
          ASSERT_EQ(vt().stream_synchronize(st(), s), OMNIRT_STATUS_OK);
        }
        ASSERT_EQ(vt().device_synchronize(st(), d), OMNIRT_STATUS_OK) << last_error();
      }
      results[size_t(d)].push_back(out.values());
    }
    EXPECT_EQ(vt().stream_destroy(st(), stream), OMNIRT_STATUS_OK);
  }
  for (int32_t d = 1; d < devices_; ++d) {
    for (size_t c = 0; c < std::size(cases); ++c) {
      // Same kernel, same inputs, same GPU model: the same bits.
      EXPECT_TRUE(results[size_t(d)][c] == results[0][c])
          << cases[c].op << ": device " << d << " differs from device 0";
    }
  }
  // rms_norm by hand: x * rsqrt(mean(x^2) + 1e-6) * w.
  for (int64_t r = 0; r < kRows; ++r) {
    double squares = 0;
    for (int64_t i = 0; i < kCols; ++i) squares += std::pow(double(x[size_t(r * kCols + i)]), 2);
    const double scale = 1 / std::sqrt(squares / kCols + 1e-6);
    for (int64_t i = 0; i < kCols; ++i) {
      const size_t k = size_t(r * kCols + i);
      const double want = x[k] * scale * w[size_t(i)];
      ASSERT_NEAR(results[1][0][k], want, 1e-4 * (1 + std::abs(want)))
          << "row " << r << " col " << i;
    }
  }
}

TEST_P(CudaMultiDeviceTest, NamedOpsRejectAMixOfDevices) {
  constexpr int64_t kCols = 64;
  DeviceTensor x1(vt(), st(), 1, {2, kCols}, numbers(2 * kCols, 1));
  DeviceTensor w0(vt(), st(), 0, {kCols}, numbers(kCols, 2));
  DeviceTensor w1(vt(), st(), 1, {kCols}, numbers(kCols, 2));
  DeviceTensor y0(vt(), st(), 0, {2, kCols}, std::vector<float>(2 * kCols));
  DeviceTensor y1(vt(), st(), 1, {2, kCols}, std::vector<float>(2 * kCols));
  DLTensor in[2] = {x1.dl(), w0.dl()};
  DLTensor out = y1.dl();
  EXPECT_EQ(vt().op_run(st(), "rms_norm", in, 2, &out, 1, nullptr, 0, nullptr),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("device"), std::string::npos) << last_error();
  in[1] = w1.dl();
  out = y0.dl();
  EXPECT_EQ(vt().op_run(st(), "rms_norm", in, 2, &out, 1, nullptr, 0, nullptr),
            OMNIRT_STATUS_INVALID_ARGUMENT)
      << "output on device 0, inputs on device 1";
  out = y1.dl();
  omnirt_stream* stream0 = nullptr;
  ASSERT_EQ(vt().stream_create(st(), 0, &stream0), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().op_run(st(), "rms_norm", in, 2, &out, 1, nullptr, 0, stream0),
            OMNIRT_STATUS_INVALID_ARGUMENT)
      << "a stream of device 0 for tensors on device 1";
  EXPECT_NE(last_error().find("stream"), std::string::npos) << last_error();
  EXPECT_EQ(vt().stream_destroy(st(), stream0), OMNIRT_STATUS_OK);
  DLTensor beyond[2] = {x1.dl(), w1.dl()};
  beyond[0].device.device_id = devices_;
  EXPECT_EQ(vt().op_run(st(), "rms_norm", beyond, 2, &out, 1, nullptr, 0, nullptr),
            OMNIRT_STATUS_OUT_OF_RANGE);
}

INSTANTIATE_TEST_SUITE_P(Allocators, CudaMultiDeviceTest,
                         ::testing::Values("caching", "async", "plain"),
                         [](const auto& param_info) { return std::string(param_info.param); });

}  // namespace
}  // namespace omnirt::cuda_test
