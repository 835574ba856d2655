// The cpu backend behind libomnirt: every routed memory, stream, event and
// graph call, errors as the embedder sees them, and many threads at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpu_test_paths.h"
#include "omnirt/host.h"

namespace {

using Bytes = std::vector<unsigned char>;

class CpuThroughHost : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* paths[] = {OMNIRT_TEST_CPU_PLUGIN_PATH};
    omnirt_host_options options{};
    options.struct_size = sizeof options;
    options.plugin_paths = paths;
    options.num_plugin_paths = 1;
    options.flags = OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR;
    ASSERT_EQ(omnirt_host_create(&options, &host_), OMNIRT_STATUS_OK) << last_message();
    ASSERT_EQ(omnirt_host_get_backend(host_, "cpu", &cpu_), OMNIRT_STATUS_OK) << last_message();
  }
  void TearDown() override { omnirt_host_destroy(host_); }

  static std::string last_message() { return omnirt_last_error()->message; }

  omnirt_memory_stats stats() {
    omnirt_memory_stats s{};
    s.struct_size = sizeof s;
    EXPECT_EQ(omnirt_get_memory_stats(cpu_, 0, &s), OMNIRT_STATUS_OK);
    return s;
  }
  omnirt_stream* new_stream() {
    omnirt_stream* stream = nullptr;
    EXPECT_EQ(omnirt_stream_create(cpu_, 0, &stream), OMNIRT_STATUS_OK);
    return stream;
  }
  omnirt_event* new_event() {
    omnirt_event* event = nullptr;
    EXPECT_EQ(omnirt_event_create(cpu_, 0, &event), OMNIRT_STATUS_OK);
    return event;
  }

  omnirt_host* host_ = nullptr;
  omnirt_backend* cpu_ = nullptr;
};

TEST_F(CpuThroughHost, IsLoadedAvailableAndChosenByAuto) {
  omnirt_backend_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(omnirt_backend_get_info(cpu_, &info), OMNIRT_STATUS_OK);
  EXPECT_STREQ(info.name, "cpu");
  EXPECT_STREQ(info.plugin_version, OMNIRT_TEST_CPU_PLUGIN_VERSION);
  EXPECT_EQ(info.available, 1);
  EXPECT_EQ(info.abi_version, OMNIRT_ABI_VERSION);
  omnirt_backend* chosen = nullptr;
  ASSERT_EQ(omnirt_host_get_backend(host_, "auto", &chosen), OMNIRT_STATUS_OK);
  EXPECT_EQ(chosen, cpu_);

  int32_t count = 0;
  ASSERT_EQ(omnirt_get_device_count(cpu_, &count), OMNIRT_STATUS_OK);
  EXPECT_EQ(count, 1);
  omnirt_device_info device{};
  device.struct_size = sizeof device;
  ASSERT_EQ(omnirt_get_device_info(cpu_, 0, &device), OMNIRT_STATUS_OK);
  EXPECT_GT(device.total_memory_bytes, 0u);
  EXPECT_GT(device.compute_units, 0);
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(omnirt_get_capabilities(cpu_, &caps), OMNIRT_STATUS_OK);
  EXPECT_NE(caps.features & OMNIRT_FEATURE_GRAPH_CAPTURE, 0u);
}

TEST_F(CpuThroughHost, EveryMemoryCallRoutes) {
  const size_t n = 1 << 16;
  void* device = nullptr;
  void* pinned = nullptr;
  ASSERT_EQ(omnirt_malloc(cpu_, 0, n, &device), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_malloc_host(cpu_, n, &pinned), OMNIRT_STATUS_OK);
  Bytes in(n), out(n, 0);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<unsigned char>(i ^ (i >> 8));

  ASSERT_EQ(omnirt_memcpy(cpu_, pinned, in.data(), n, OMNIRT_MEMCPY_HOST_TO_HOST), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memcpy(cpu_, device, pinned, n, OMNIRT_MEMCPY_HOST_TO_DEVICE), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memset(cpu_, pinned, 0, n), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memcpy(cpu_, pinned, device, n, OMNIRT_MEMCPY_DEVICE_TO_DEVICE), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memcpy(cpu_, out.data(), pinned, n, OMNIRT_MEMCPY_DEVICE_TO_HOST), OMNIRT_STATUS_OK);
  EXPECT_EQ(out, in);

  omnirt_stream* stream = new_stream();
  void* async = nullptr;
  ASSERT_EQ(omnirt_malloc_async(cpu_, n, stream, &async), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memset_async(cpu_, async, 0x4D, n, stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memcpy_async(cpu_, out.data(), async, n, OMNIRT_MEMCPY_DEVICE_TO_HOST, stream),
            OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_free_async(cpu_, async, stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_device_synchronize(cpu_, 0), OMNIRT_STATUS_OK);
  EXPECT_EQ(out, Bytes(n, 0x4D));

  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(omnirt_mem_get_info(cpu_, 0, &free_bytes, &total_bytes), OMNIRT_STATUS_OK);
  EXPECT_GT(free_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);

  auto s = stats();
  EXPECT_EQ(s.allocated_bytes, 2 * n);
  EXPECT_EQ(s.peak_bytes, 3 * n);
  EXPECT_EQ(s.alloc_count, 3u);
  EXPECT_EQ(s.free_count, 1u);
  ASSERT_EQ(omnirt_free(cpu_, 0, device), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_free_host(cpu_, pinned), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_reset_memory_stats(cpu_, 0), OMNIRT_STATUS_OK);
  s = stats();
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.reserved_bytes, 0u);
  EXPECT_EQ(s.peak_bytes, 0u);
  EXPECT_EQ(s.alloc_count, 0u);
  EXPECT_EQ(s.free_count, 0u);
  EXPECT_EQ(omnirt_stream_destroy(cpu_, stream), OMNIRT_STATUS_OK);
}

TEST_F(CpuThroughHost, EveryStreamEventAndGraphCallRoutes) {
  const size_t n = 1 << 20;
  Bytes a(n, 0), b(n, 0);
  omnirt_stream* producer = new_stream();
  omnirt_stream* consumer = new_stream();
  omnirt_event* start = new_event();
  omnirt_event* done = new_event();

  ASSERT_EQ(omnirt_event_record(cpu_, start, producer), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memset_async(cpu_, a.data(), 0x21, n, producer), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_event_record(cpu_, done, producer), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_stream_wait_event(cpu_, consumer, done), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memcpy_async(cpu_, b.data(), a.data(), n, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, consumer),
            OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_stream_synchronize(cpu_, consumer), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_stream_query(cpu_, consumer), OMNIRT_STATUS_OK);
  EXPECT_EQ(b, Bytes(n, 0x21));
  ASSERT_EQ(omnirt_event_synchronize(cpu_, done), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_event_query(cpu_, done), OMNIRT_STATUS_OK);
  float ms = -1;
  ASSERT_EQ(omnirt_event_elapsed_time(cpu_, start, done, &ms), OMNIRT_STATUS_OK);
  EXPECT_GE(ms, 0.0f);

  omnirt_graph* graph = nullptr;
  ASSERT_EQ(omnirt_stream_begin_capture(cpu_, producer), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memset_async(cpu_, a.data(), 0x22, n, producer), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_stream_end_capture(cpu_, producer, &graph), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_stream_synchronize(cpu_, producer), OMNIRT_STATUS_OK);
  EXPECT_EQ(a[0], 0x21);
  ASSERT_EQ(omnirt_graph_launch(cpu_, graph, consumer), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_stream_synchronize(cpu_, consumer), OMNIRT_STATUS_OK);
  EXPECT_EQ(a, Bytes(n, 0x22));

  EXPECT_EQ(omnirt_graph_destroy(cpu_, graph), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_event_destroy(cpu_, start), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_event_destroy(cpu_, done), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_stream_destroy(cpu_, producer), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_stream_destroy(cpu_, consumer), OMNIRT_STATUS_OK);
}

TEST_F(CpuThroughHost, FailuresReachTheEmbedderWithStatusMessageAndBackend) {
  void* ptr = nullptr;
  ASSERT_EQ(omnirt_malloc(cpu_, 0, 128, &ptr), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_free(cpu_, 0, ptr), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_free(cpu_, 0, ptr), OMNIRT_STATUS_INVALID_ARGUMENT);
  const omnirt_error_info* error = omnirt_last_error();
  EXPECT_EQ(error->status, OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error->backend, "cpu");
  EXPECT_NE(std::string(error->message).find("not a live allocation"), std::string::npos)
      << error->message;

  void* pinned = nullptr;
  ASSERT_EQ(omnirt_malloc_host(cpu_, 64, &pinned), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_free(cpu_, 0, pinned), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(omnirt_free_host(cpu_, pinned), OMNIRT_STATUS_OK);

  const omnirt_status bad_device = omnirt_malloc(cpu_, 3, 64, &ptr);
  EXPECT_TRUE(bad_device == OMNIRT_STATUS_OUT_OF_RANGE || bad_device == OMNIRT_STATUS_INVALID_ARGUMENT)
      << omnirt_status_name(bad_device);
  char buffer[8];
  EXPECT_EQ(omnirt_memcpy(cpu_, buffer, buffer + 4, 4, 42), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(omnirt_memcpy(cpu_, nullptr, buffer, 4, OMNIRT_MEMCPY_HOST_TO_HOST),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(omnirt_malloc(cpu_, 0, 64, nullptr), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(omnirt_malloc(cpu_, 0, SIZE_MAX, &ptr), OMNIRT_STATUS_OUT_OF_MEMORY);

  omnirt_event* never = new_event();
  omnirt_event* recorded = new_event();
  omnirt_stream* stream = new_stream();
  ASSERT_EQ(omnirt_event_record(cpu_, recorded, stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_event_synchronize(cpu_, recorded), OMNIRT_STATUS_OK);
  float ms = 0;
  EXPECT_EQ(omnirt_event_elapsed_time(cpu_, never, recorded, &ms), OMNIRT_STATUS_INVALID_ARGUMENT);
  ASSERT_EQ(omnirt_stream_destroy(cpu_, stream), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_stream_synchronize(cpu_, stream), OMNIRT_STATUS_INVALID_ARGUMENT);
  omnirt_event_destroy(cpu_, never);
  omnirt_event_destroy(cpu_, recorded);
  EXPECT_EQ(stats().allocated_bytes, 0u);
}

// Threads allocate, copy through their own stream and the sync path, check the
// bytes, and free (half of them stream-ordered), all at once.
TEST_F(CpuThroughHost, ConcurrentThreadsRouteSafelyAndStatsAddUp) {
  constexpr int kThreads = 6;
  constexpr int kRounds = 150;
  constexpr size_t kMaxSize = 64 * 1024;
  std::atomic<int> failures{0};
  std::atomic<uint64_t> requested{0};

  auto worker = [&](int id) {
    std::mt19937 random(id);
    omnirt_stream* stream = nullptr;
    if (omnirt_stream_create(cpu_, 0, &stream) != OMNIRT_STATUS_OK) {
      ++failures;
      return;
    }
    Bytes out(kMaxSize);
    for (int round = 0; round < kRounds; ++round) {
      const size_t size = 1 + random() % kMaxSize;
      const auto value = static_cast<unsigned char>(id * 31 + round);
      void* a = nullptr;
      void* b = nullptr;
      bool ok = omnirt_malloc(cpu_, 0, size, &a) == OMNIRT_STATUS_OK &&
                omnirt_malloc_async(cpu_, size, stream, &b) == OMNIRT_STATUS_OK &&
                omnirt_memset_async(cpu_, a, value, size, stream) == OMNIRT_STATUS_OK &&
                omnirt_memcpy_async(cpu_, b, a, size, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, stream) ==
                    OMNIRT_STATUS_OK &&
                omnirt_stream_synchronize(cpu_, stream) == OMNIRT_STATUS_OK &&
                omnirt_memcpy(cpu_, out.data(), b, size, OMNIRT_MEMCPY_DEVICE_TO_HOST) ==
                    OMNIRT_STATUS_OK;
      ok = ok && std::all_of(out.begin(), out.begin() + size, [&](unsigned char c) { return c == value; });
      ok = omnirt_free(cpu_, 0, a) == OMNIRT_STATUS_OK && ok;
      ok = omnirt_free_async(cpu_, b, stream) == OMNIRT_STATUS_OK && ok;
      requested += 2 * size;
      if (!ok) ++failures;
    }
    if (omnirt_stream_destroy(cpu_, stream) != OMNIRT_STATUS_OK) ++failures;
  };
  std::vector<std::thread> threads;
  for (int id = 0; id < kThreads; ++id) threads.emplace_back(worker, id);
  for (auto& thread : threads) thread.join();

  EXPECT_EQ(failures, 0);
  const auto s = stats();
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.reserved_bytes, 0u);
  EXPECT_EQ(s.alloc_count, uint64_t{2} * kThreads * kRounds);
  EXPECT_EQ(s.free_count, uint64_t{2} * kThreads * kRounds);
  EXPECT_GT(s.peak_bytes, 0u);
  // Per thread at most a round's two blocks plus the previous round's b, whose
  // stream-ordered free may not have run yet.
  EXPECT_LE(s.peak_bytes, uint64_t{3} * kThreads * kMaxSize);
  EXPECT_LE(s.peak_bytes, requested.load());
}

}  // namespace
