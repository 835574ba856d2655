// Routed calls through the good fake plugin (host memory, deferred streams),
// the minimal one (no optional slots), an unavailable one and one whose slot
// throws: every routed call, its argument checks and its errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "test_support.h"

namespace omnirt_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class RoutingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    host_ = make_host({ZOO_GOOD, ZOO_MINIMAL, ZOO_UNAVAIL, ZOO_THROWSLOT, ZOO_NEWMINOR});
    ASSERT_TRUE(host_);
    good_ = backend_named(host_.get(), "good");
    minimal_ = backend_named(host_.get(), "minimal");
    unavail_ = backend_named(host_.get(), "unavail");
    throwslot_ = backend_named(host_.get(), "throwslot");
    newminor_ = backend_named(host_.get(), "newminor");
    ASSERT_TRUE(good_ && minimal_ && unavail_ && throwslot_ && newminor_);
  }

  void* alloc(size_t size) {
    void* ptr = nullptr;
    EXPECT_EQ(omnirt_malloc(good_, 0, size, &ptr), OMNIRT_STATUS_OK) << last_message();
    return ptr;
  }

  omnirt_stream* stream(omnirt_backend* backend) {
    omnirt_stream* s = nullptr;
    EXPECT_EQ(omnirt_stream_create(backend, 0, &s), OMNIRT_STATUS_OK) << last_message();
    return s;
  }

  omnirt_memory_stats stats() {
    omnirt_memory_stats s{};
    s.struct_size = sizeof s;
    EXPECT_EQ(omnirt_get_memory_stats(good_, 0, &s), OMNIRT_STATUS_OK) << last_message();
    return s;
  }

  HostPtr host_;
  omnirt_backend* good_ = nullptr;
  omnirt_backend* minimal_ = nullptr;
  omnirt_backend* unavail_ = nullptr;
  omnirt_backend* throwslot_ = nullptr;
  omnirt_backend* newminor_ = nullptr;
};

TEST_F(RoutingTest, MemoryRoundTrip) {
  constexpr size_t kSize = 1000;
  void* device = alloc(kSize);
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(device) % 256, 0u);
  ASSERT_EQ(omnirt_memset(good_, device, 0x5A, kSize), OMNIRT_STATUS_OK);
  std::vector<unsigned char> host(kSize, 0);
  ASSERT_EQ(omnirt_memcpy(good_, host.data(), device, kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST), OMNIRT_STATUS_OK);
  EXPECT_EQ(host, std::vector<unsigned char>(kSize, 0x5A));
  EXPECT_EQ(omnirt_free(good_, 0, device), OMNIRT_STATUS_OK);
}

TEST_F(RoutingTest, ZeroBytesNeedNoPointer) {
  void* ptr = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(omnirt_malloc(good_, 0, 0, &ptr), OMNIRT_STATUS_OK);
  EXPECT_EQ(ptr, nullptr);
  EXPECT_EQ(omnirt_memset(good_, nullptr, 0, 0), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_memcpy(good_, nullptr, nullptr, 0, OMNIRT_MEMCPY_HOST_TO_HOST), OMNIRT_STATUS_OK);
}

TEST_F(RoutingTest, MemoryStatsCountBytes) {
  ASSERT_EQ(omnirt_reset_memory_stats(good_, 0), OMNIRT_STATUS_OK);
  void* a = alloc(100);
  void* b = alloc(200);
  omnirt_memory_stats s = stats();
  EXPECT_EQ(s.known, OMNIRT_STAT_ALLOCATED_BYTES | OMNIRT_STAT_PEAK_BYTES | OMNIRT_STAT_ALLOC_COUNT |
                         OMNIRT_STAT_FREE_COUNT);
  EXPECT_EQ(s.allocated_bytes, 300u);
  EXPECT_EQ(s.peak_bytes, 300u);
  EXPECT_EQ(s.alloc_count, 2u);
  ASSERT_EQ(omnirt_free(good_, 0, a), OMNIRT_STATUS_OK);
  s = stats();
  EXPECT_EQ(s.allocated_bytes, 200u);
  EXPECT_EQ(s.peak_bytes, 300u);
  EXPECT_EQ(s.free_count, 1u);
  ASSERT_EQ(omnirt_reset_memory_stats(good_, 0), OMNIRT_STATUS_OK);
  s = stats();
  EXPECT_EQ(s.peak_bytes, 200u);
  EXPECT_EQ(s.alloc_count, 0u);
  EXPECT_EQ(s.free_count, 0u);
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  ASSERT_EQ(omnirt_mem_get_info(good_, 0, &free_bytes, &total_bytes), OMNIRT_STATUS_OK);
  EXPECT_EQ(total_bytes, size_t{1} << 30);
  EXPECT_EQ(free_bytes, total_bytes - 200);
  ASSERT_EQ(omnirt_free(good_, 0, b), OMNIRT_STATUS_OK);
}

TEST_F(RoutingTest, MemoryStatsRespectAnOlderCallersSize) {
  omnirt_memory_stats s;
  std::memset(&s, 0xCD, sizeof s);
  s.struct_size = offsetof(omnirt_memory_stats, peak_bytes);
  ASSERT_EQ(omnirt_get_memory_stats(good_, 0, &s), OMNIRT_STATUS_OK);
  EXPECT_EQ(s.struct_size, offsetof(omnirt_memory_stats, peak_bytes));
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(reinterpret_cast<const unsigned char*>(&s.peak_bytes)[0], 0xCD);
}

TEST_F(RoutingTest, PinnedHostMemory) {
  void* ptr = nullptr;
  ASSERT_EQ(omnirt_malloc_host(good_, 64, &ptr), OMNIRT_STATUS_OK);
  ASSERT_NE(ptr, nullptr);
  std::memset(ptr, 1, 64);
  EXPECT_EQ(omnirt_free_host(good_, ptr), OMNIRT_STATUS_OK);
}

TEST_F(RoutingTest, StreamWorkIsDeferredUntilSynchronize) {
  void* buffer = alloc(32);
  ASSERT_EQ(omnirt_memset(good_, buffer, 0, 32), OMNIRT_STATUS_OK);
  omnirt_stream* s = stream(good_);
  ASSERT_EQ(omnirt_memset_async(good_, buffer, 7, 32, s), OMNIRT_STATUS_OK);
  // NOT_READY is an answer, not a failure: the last error stays as it was.
  omnirt_backend* none = nullptr;
  ASSERT_EQ(omnirt_host_get_backend(host_.get(), "nope", &none), OMNIRT_STATUS_NOT_FOUND);
  EXPECT_EQ(omnirt_stream_query(good_, s), OMNIRT_STATUS_NOT_READY);
  EXPECT_EQ(omnirt_last_error()->status, OMNIRT_STATUS_NOT_FOUND);
  EXPECT_EQ(static_cast<unsigned char*>(buffer)[0], 0);
  ASSERT_EQ(omnirt_stream_synchronize(good_, s), OMNIRT_STATUS_OK);
  EXPECT_EQ(static_cast<unsigned char*>(buffer)[31], 7);
  EXPECT_EQ(omnirt_stream_query(good_, s), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_stream_destroy(good_, s), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_free(good_, 0, buffer), OMNIRT_STATUS_OK);
}

TEST_F(RoutingTest, AsyncCopyAndStreamOrderedMemory) {
  omnirt_stream* s = stream(good_);
  void* device = nullptr;
  ASSERT_EQ(omnirt_malloc_async(good_, 16, s, &device), OMNIRT_STATUS_OK);
  const char source[16] = "stream ordered";
  char back[16] = {};
  ASSERT_EQ(omnirt_memcpy_async(good_, device, source, 16, OMNIRT_MEMCPY_HOST_TO_DEVICE, s), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memcpy_async(good_, back, device, 16, OMNIRT_MEMCPY_DEVICE_TO_HOST, s), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_free_async(good_, device, s), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_device_synchronize(good_, 0), OMNIRT_STATUS_OK);
  EXPECT_STREQ(back, "stream ordered");
  EXPECT_EQ(stats().allocated_bytes, 0u);
  EXPECT_EQ(omnirt_stream_destroy(good_, s), OMNIRT_STATUS_OK);
}

TEST_F(RoutingTest, EventsCompleteWithTheirWorkAndAreTimed) {
  omnirt_stream* s = stream(good_);
  omnirt_event* start = nullptr;
  omnirt_event* end = nullptr;
  ASSERT_EQ(omnirt_event_create(good_, 0, &start), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_event_create(good_, 0, &end), OMNIRT_STATUS_OK);
  void* buffer = alloc(1 << 20);
  ASSERT_EQ(omnirt_event_record(good_, start, s), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memset_async(good_, buffer, 1, 1 << 20, s), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_event_record(good_, end, s), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_event_query(good_, start), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_event_query(good_, end), OMNIRT_STATUS_NOT_READY);
  float ms = -1;
  EXPECT_EQ(omnirt_event_elapsed_time(good_, start, end, &ms), OMNIRT_STATUS_NOT_READY);
  ASSERT_EQ(omnirt_event_synchronize(good_, end), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_event_query(good_, end), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_event_elapsed_time(good_, start, end, &ms), OMNIRT_STATUS_OK);
  EXPECT_GE(ms, 0.0f);
  EXPECT_EQ(omnirt_event_destroy(good_, start), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_event_destroy(good_, end), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_stream_destroy(good_, s), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_free(good_, 0, buffer), OMNIRT_STATUS_OK);
}

TEST_F(RoutingTest, StreamWaitsForAnEventOfAnotherStream) {
  omnirt_stream* producer = stream(good_);
  omnirt_stream* consumer = stream(good_);
  omnirt_event* ready = nullptr;
  ASSERT_EQ(omnirt_event_create(good_, 0, &ready), OMNIRT_STATUS_OK);
  void* buffer = alloc(8);
  ASSERT_EQ(omnirt_memset_async(good_, buffer, 9, 8, producer), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_event_record(good_, ready, producer), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_stream_wait_event(good_, consumer, ready), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_event_query(good_, ready), OMNIRT_STATUS_OK);
  EXPECT_EQ(static_cast<unsigned char*>(buffer)[7], 9);
  omnirt_event_destroy(good_, ready);
  omnirt_stream_destroy(good_, producer);
  omnirt_stream_destroy(good_, consumer);
  omnirt_free(good_, 0, buffer);
}

TEST_F(RoutingTest, CapturedWorkRunsWhenTheGraphIsLaunched) {
  omnirt_stream* s = stream(good_);
  void* buffer = alloc(4);
  ASSERT_EQ(omnirt_memset(good_, buffer, 0, 4), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_stream_begin_capture(good_, s), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memset_async(good_, buffer, 3, 4, s), OMNIRT_STATUS_OK);
  omnirt_graph* graph = nullptr;
  ASSERT_EQ(omnirt_stream_end_capture(good_, s, &graph), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_stream_synchronize(good_, s), OMNIRT_STATUS_OK);
  EXPECT_EQ(static_cast<unsigned char*>(buffer)[0], 0);  // captured, not run
  ASSERT_EQ(omnirt_graph_launch(good_, graph, s), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_stream_synchronize(good_, s), OMNIRT_STATUS_OK);
  EXPECT_EQ(static_cast<unsigned char*>(buffer)[3], 3);
  EXPECT_EQ(omnirt_graph_destroy(good_, graph), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_stream_end_capture(good_, s, &graph), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(omnirt_last_error()->message, "fake: stream is not capturing");
  omnirt_stream_destroy(good_, s);
  omnirt_free(good_, 0, buffer);
}

// Each routed call, made with one NULL argument, and the argument's name.
struct NullCase {
  const char* argument;
  std::function<omnirt_status(omnirt_backend*)> call;
};

TEST_F(RoutingTest, NullArgumentsAreInvalidAndNamed) {
  int dummy = 0;
  void* p = &dummy;
  auto* s = reinterpret_cast<omnirt_stream*>(&dummy);
  auto* e = reinterpret_cast<omnirt_event*>(&dummy);
  auto* g = reinterpret_cast<omnirt_graph*>(&dummy);
  const std::vector<NullCase> cases = {
      {"omnirt_malloc: ptr", [&](omnirt_backend* b) { return omnirt_malloc(b, 0, 8, nullptr); }},
      {"omnirt_malloc_host: ptr", [&](omnirt_backend* b) { return omnirt_malloc_host(b, 8, nullptr); }},
      {"omnirt_malloc_async: stream", [&](omnirt_backend* b) { return omnirt_malloc_async(b, 8, nullptr, &p); }},
      {"omnirt_malloc_async: ptr", [&](omnirt_backend* b) { return omnirt_malloc_async(b, 8, s, nullptr); }},
      {"omnirt_free_async: stream", [&](omnirt_backend* b) { return omnirt_free_async(b, p, nullptr); }},
      {"omnirt_memcpy: dst", [&](omnirt_backend* b) { return omnirt_memcpy(b, nullptr, p, 1, 0); }},
      {"omnirt_memcpy: src", [&](omnirt_backend* b) { return omnirt_memcpy(b, p, nullptr, 1, 0); }},
      {"omnirt_memcpy_async: stream", [&](omnirt_backend* b) { return omnirt_memcpy_async(b, p, p, 1, 0, nullptr); }},
      {"omnirt_memset: ptr", [&](omnirt_backend* b) { return omnirt_memset(b, nullptr, 0, 1); }},
      {"omnirt_memset_async: stream", [&](omnirt_backend* b) { return omnirt_memset_async(b, p, 0, 1, nullptr); }},
      {"omnirt_mem_get_info: free_bytes", [&](omnirt_backend* b) {
         size_t total = 0;
         return omnirt_mem_get_info(b, 0, nullptr, &total);
       }},
      {"omnirt_mem_get_info: total_bytes", [&](omnirt_backend* b) {
         size_t free_bytes = 0;
         return omnirt_mem_get_info(b, 0, &free_bytes, nullptr);
       }},
      {"omnirt_get_memory_stats: stats", [&](omnirt_backend* b) { return omnirt_get_memory_stats(b, 0, nullptr); }},
      {"omnirt_stream_create: stream", [&](omnirt_backend* b) { return omnirt_stream_create(b, 0, nullptr); }},
      {"omnirt_stream_synchronize: stream", [&](omnirt_backend* b) { return omnirt_stream_synchronize(b, nullptr); }},
      {"omnirt_stream_query: stream", [&](omnirt_backend* b) { return omnirt_stream_query(b, nullptr); }},
      {"omnirt_stream_wait_event: stream", [&](omnirt_backend* b) { return omnirt_stream_wait_event(b, nullptr, e); }},
      {"omnirt_stream_wait_event: event", [&](omnirt_backend* b) { return omnirt_stream_wait_event(b, s, nullptr); }},
      {"omnirt_event_create: event", [&](omnirt_backend* b) { return omnirt_event_create(b, 0, nullptr); }},
      {"omnirt_event_record: event", [&](omnirt_backend* b) { return omnirt_event_record(b, nullptr, s); }},
      {"omnirt_event_record: stream", [&](omnirt_backend* b) { return omnirt_event_record(b, e, nullptr); }},
      {"omnirt_event_query: event", [&](omnirt_backend* b) { return omnirt_event_query(b, nullptr); }},
      {"omnirt_event_synchronize: event", [&](omnirt_backend* b) { return omnirt_event_synchronize(b, nullptr); }},
      {"omnirt_event_elapsed_time: start", [&](omnirt_backend* b) {
         float ms = 0;
         return omnirt_event_elapsed_time(b, nullptr, e, &ms);
       }},
      {"omnirt_event_elapsed_time: end", [&](omnirt_backend* b) {
         float ms = 0;
         return omnirt_event_elapsed_time(b, e, nullptr, &ms);
       }},
      {"omnirt_event_elapsed_time: milliseconds",
       [&](omnirt_backend* b) { return omnirt_event_elapsed_time(b, e, e, nullptr); }},
      {"omnirt_stream_begin_capture: stream", [&](omnirt_backend* b) { return omnirt_stream_begin_capture(b, nullptr); }},
      {"omnirt_stream_end_capture: stream", [&](omnirt_backend* b) {
         omnirt_graph* out = nullptr;
         return omnirt_stream_end_capture(b, nullptr, &out);
       }},
      {"omnirt_stream_end_capture: graph", [&](omnirt_backend* b) { return omnirt_stream_end_capture(b, s, nullptr); }},
      {"omnirt_graph_launch: graph", [&](omnirt_backend* b) { return omnirt_graph_launch(b, nullptr, s); }},
      {"omnirt_graph_launch: stream", [&](omnirt_backend* b) { return omnirt_graph_launch(b, g, nullptr); }},
      {"omnirt_get_capabilities: caps", [&](omnirt_backend* b) { return omnirt_get_capabilities(b, nullptr); }},
      {"omnirt_get_device_count: count", [&](omnirt_backend* b) { return omnirt_get_device_count(b, nullptr); }},
      {"omnirt_get_device_info: info", [&](omnirt_backend* b) { return omnirt_get_device_info(b, 0, nullptr); }},
      {"omnirt_list_op_sets: sets", [&](omnirt_backend* b) {
         size_t count = 0;
         return omnirt_list_op_sets(b, nullptr, &count);
       }},
      {"omnirt_list_op_sets: count", [&](omnirt_backend* b) {
         const omnirt_op_set* sets = nullptr;
         return omnirt_list_op_sets(b, &sets, nullptr);
       }},
  };
  for (const NullCase& c : cases) {
    EXPECT_EQ(c.call(good_), OMNIRT_STATUS_INVALID_ARGUMENT) << c.argument;
    EXPECT_EQ(last_message(), std::string(c.argument) + " is NULL");
    // The same call with a NULL backend names the backend instead.
    const std::string call(c.argument, std::strchr(c.argument, ':'));
    EXPECT_EQ(c.call(nullptr), OMNIRT_STATUS_INVALID_ARGUMENT) << call;
    EXPECT_EQ(last_message(), call + ": backend is NULL");
  }
}

TEST_F(RoutingTest, NullBackendIsInvalidForTheRemainingCalls) {
  void* p = this;
  const std::vector<std::function<omnirt_status()>> calls = {
      [&] { return omnirt_free(nullptr, 0, p); },
      [&] { return omnirt_free_host(nullptr, p); },
      [&] { return omnirt_reset_memory_stats(nullptr, 0); },
      [&] { return omnirt_device_synchronize(nullptr, 0); },
      [&] { return omnirt_stream_destroy(nullptr, nullptr); },
      [&] { return omnirt_event_destroy(nullptr, nullptr); },
      [&] { return omnirt_graph_destroy(nullptr, nullptr); },
  };
  for (const auto& call : calls) {
    EXPECT_EQ(call(), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_THAT(last_message(), HasSubstr(": backend is NULL"));
  }
}

TEST_F(RoutingTest, DestroyingNullIsANoOp) {
  // Even on the minimal backend, which lacks every one of these slots.
  for (omnirt_backend* backend : {good_, minimal_}) {
    EXPECT_EQ(omnirt_free(backend, 0, nullptr), OMNIRT_STATUS_OK);
    EXPECT_EQ(omnirt_free_host(backend, nullptr), OMNIRT_STATUS_OK);
    EXPECT_EQ(omnirt_free_async(backend, nullptr, nullptr), OMNIRT_STATUS_OK);
    EXPECT_EQ(omnirt_stream_destroy(backend, nullptr), OMNIRT_STATUS_OK);
    EXPECT_EQ(omnirt_event_destroy(backend, nullptr), OMNIRT_STATUS_OK);
    EXPECT_EQ(omnirt_graph_destroy(backend, nullptr), OMNIRT_STATUS_OK);
  }
}

// A routed call of the minimal backend and the slot it lacks.
struct MissingSlot {
  const char* slot;
  std::function<omnirt_status()> call;
};

TEST_F(RoutingTest, MissingOptionalSlotsAreNotSupported) {
  int dummy = 0;
  void* p = &dummy;
  auto* s = reinterpret_cast<omnirt_stream*>(&dummy);
  auto* e = reinterpret_cast<omnirt_event*>(&dummy);
  auto* g = reinterpret_cast<omnirt_graph*>(&dummy);
  omnirt_backend* b = minimal_;
  size_t n = 0;
  float ms = 0;
  omnirt_memory_stats st{};
  st.struct_size = sizeof st;
  const omnirt_op_set* sets = nullptr;
  const std::vector<MissingSlot> cases = {
      {"malloc_host", [&] { return omnirt_malloc_host(b, 8, &p); }},
      {"free_host", [&] { return omnirt_free_host(b, p); }},
      {"malloc_async", [&] { return omnirt_malloc_async(b, 8, s, &p); }},
      {"free_async", [&] { return omnirt_free_async(b, p, s); }},
      {"memcpy_async", [&] { return omnirt_memcpy_async(b, p, p, 1, 0, s); }},
      {"memset_async", [&] { return omnirt_memset_async(b, p, 0, 1, s); }},
      {"mem_get_info", [&] { return omnirt_mem_get_info(b, 0, &n, &n); }},
      {"memory_stats", [&] { return omnirt_get_memory_stats(b, 0, &st); }},
      {"reset_memory_stats", [&] { return omnirt_reset_memory_stats(b, 0); }},
      {"stream_create", [&] { return omnirt_stream_create(b, 0, &s); }},
      {"stream_destroy", [&] { return omnirt_stream_destroy(b, s); }},
      {"stream_synchronize", [&] { return omnirt_stream_synchronize(b, s); }},
      {"stream_query", [&] { return omnirt_stream_query(b, s); }},
      {"stream_wait_event", [&] { return omnirt_stream_wait_event(b, s, e); }},
      {"event_create", [&] { return omnirt_event_create(b, 0, &e); }},
      {"event_destroy", [&] { return omnirt_event_destroy(b, e); }},
      {"event_record", [&] { return omnirt_event_record(b, e, s); }},
      {"event_query", [&] { return omnirt_event_query(b, e); }},
      {"event_synchronize", [&] { return omnirt_event_synchronize(b, e); }},
      {"event_elapsed_time", [&] { return omnirt_event_elapsed_time(b, e, e, &ms); }},
      {"stream_begin_capture", [&] { return omnirt_stream_begin_capture(b, s); }},
      {"stream_end_capture", [&] { return omnirt_stream_end_capture(b, s, &g); }},
      {"graph_launch", [&] { return omnirt_graph_launch(b, g, s); }},
      {"graph_destroy", [&] { return omnirt_graph_destroy(b, g); }},
      {"list_op_sets", [&] { return omnirt_list_op_sets(b, &sets, &n); }},
  };
  for (const MissingSlot& c : cases) {
    EXPECT_EQ(c.call(), OMNIRT_STATUS_NOT_SUPPORTED) << c.slot;
    EXPECT_EQ(last_message(), std::string("backend 'minimal' does not implement ") + c.slot);
    EXPECT_STREQ(omnirt_last_error()->backend, "minimal");
    // Restore the handles a failed create call cleared.
    s = reinterpret_cast<omnirt_stream*>(&dummy);
    e = reinterpret_cast<omnirt_event*>(&dummy);
    g = reinterpret_cast<omnirt_graph*>(&dummy);
  }
}

TEST_F(RoutingTest, RequiredSlotsOfTheMinimalBackendWork) {
  void* ptr = nullptr;
  ASSERT_EQ(omnirt_malloc(minimal_, 0, 64, &ptr), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_memset(minimal_, ptr, 1, 64), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_device_synchronize(minimal_, 0), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_free(minimal_, 0, ptr), OMNIRT_STATUS_OK);
}

TEST_F(RoutingTest, DeviceIndexIsChecked) {
  void* ptr = nullptr;
  EXPECT_EQ(omnirt_malloc(good_, 1, 8, &ptr), OMNIRT_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(last_message(), "omnirt_malloc: device 1 is out of range: backend 'good' has 1 device(s)");
  EXPECT_EQ(omnirt_malloc(good_, -1, 8, &ptr), OMNIRT_STATUS_OUT_OF_RANGE);
  omnirt_device_info info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(omnirt_get_device_info(good_, 5, &info), OMNIRT_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(omnirt_device_synchronize(good_, 2), OMNIRT_STATUS_OUT_OF_RANGE);
  omnirt_stream* s = nullptr;
  EXPECT_EQ(omnirt_stream_create(good_, 3, &s), OMNIRT_STATUS_OUT_OF_RANGE);
}

TEST_F(RoutingTest, CopyKindIsChecked) {
  char a = 0;
  char b = 0;
  EXPECT_EQ(omnirt_memcpy(good_, &a, &b, 1, 4), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(last_message(), "omnirt_memcpy: kind 4 is not an omnirt_memcpy_kind");
}

TEST_F(RoutingTest, PluginErrorDetailReachesTheCaller) {
  void* ptr = nullptr;
  EXPECT_EQ(omnirt_malloc(good_, 0, size_t{2} << 30, &ptr), OMNIRT_STATUS_OUT_OF_MEMORY);
  const omnirt_error_info* error = omnirt_last_error();
  EXPECT_EQ(error->struct_size, sizeof(omnirt_error_info));
  EXPECT_EQ(error->status, OMNIRT_STATUS_OUT_OF_MEMORY);
  EXPECT_EQ(error->native_code, ENOMEM);
  EXPECT_THAT(error->message, StartsWith("fake: cannot allocate 2147483648 bytes"));
  EXPECT_STREQ(error->backend, "good");
  // A later success leaves the detail in place.
  ASSERT_EQ(omnirt_memset(good_, nullptr, 0, 0), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_last_error()->status, OMNIRT_STATUS_OUT_OF_MEMORY);
}

TEST(PluginErrors, FailureWithoutDetailGetsAGenericMessage) {
  HostPtr host = make_host({ZOO_QUIET});
  omnirt_backend* quiet = backend_named(host.get(), "quiet");
  void* ptr = nullptr;
  EXPECT_EQ(omnirt_malloc(quiet, 0, size_t{2} << 30, &ptr), OMNIRT_STATUS_OUT_OF_MEMORY);
  EXPECT_EQ(last_message(), "backend 'quiet': malloc_device failed with OUT_OF_MEMORY");
  EXPECT_EQ(omnirt_last_error()->native_code, 0);
  EXPECT_STREQ(omnirt_last_error()->backend, "quiet");
}

TEST(PluginErrors, DetailOfASlotThatSucceededIsNotAttachedToALaterFailure) {
  HostPtr host = make_host({ZOO_QUIET});
  omnirt_backend* quiet = backend_named(host.get(), "quiet");
  ASSERT_EQ(omnirt_reset_memory_stats(quiet, 0), OMNIRT_STATUS_OK);  // calls set_error, then succeeds
  void* ptr = nullptr;
  EXPECT_EQ(omnirt_malloc(quiet, 0, size_t{2} << 30, &ptr), OMNIRT_STATUS_OUT_OF_MEMORY);
  EXPECT_EQ(last_message(), "backend 'quiet': malloc_device failed with OUT_OF_MEMORY");
  EXPECT_EQ(omnirt_last_error()->native_code, 0);
}

TEST_F(RoutingTest, ExceptionEscapingASlotIsCaught) {
  void* ptr = nullptr;
  ASSERT_EQ(omnirt_malloc(throwslot_, 0, 16, &ptr), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_memset(throwslot_, ptr, 1, 16), OMNIRT_STATUS_INTERNAL);
  EXPECT_THAT(last_message(), HasSubstr("backend 'throwslot': an exception escaped memset_sync"));
  EXPECT_STREQ(omnirt_last_error()->backend, "throwslot");
  EXPECT_EQ(omnirt_memset(throwslot_, ptr, 1, 0), OMNIRT_STATUS_OK);  // still usable
  EXPECT_EQ(omnirt_free(throwslot_, 0, ptr), OMNIRT_STATUS_OK);
}

TEST_F(RoutingTest, UnavailableBackendDescribesItselfButRefusesWork) {
  void* ptr = nullptr;
  EXPECT_EQ(omnirt_malloc(unavail_, 0, 8, &ptr), OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_EQ(last_message(), "omnirt_malloc: backend 'unavail' is not available here: fake: no fake device here "
                            "(set FAKE_DEVICE=1)");
  omnirt_stream* s = nullptr;
  EXPECT_EQ(omnirt_stream_create(unavail_, 0, &s), OMNIRT_STATUS_UNAVAILABLE);
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  EXPECT_EQ(omnirt_get_capabilities(unavail_, &caps), OMNIRT_STATUS_OK);
  EXPECT_STREQ(caps.vendor, "fake");
}

TEST_F(RoutingTest, CapabilitiesDevicesAndOpSets) {
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(omnirt_get_capabilities(good_, &caps), OMNIRT_STATUS_OK);
  EXPECT_EQ(caps.struct_size, sizeof caps);
  EXPECT_EQ(caps.dl_device_type, kDLCPU);
  EXPECT_EQ(caps.device_count, 1);
  EXPECT_TRUE(caps.features & OMNIRT_FEATURE_STREAMS);
  EXPECT_TRUE(caps.features & OMNIRT_FEATURE_GRAPH_CAPTURE);
  EXPECT_FALSE(caps.features & OMNIRT_FEATURE_MODULES);
  EXPECT_EQ(caps.dtypes, (1u << OMNIRT_DTYPE_F32) | (1u << OMNIRT_DTYPE_F16) | (1u << OMNIRT_DTYPE_I32));
  EXPECT_EQ(caps.num_module_formats, 0u);

  omnirt_capabilities minimal_caps{};
  minimal_caps.struct_size = sizeof minimal_caps;
  ASSERT_EQ(omnirt_get_capabilities(minimal_, &minimal_caps), OMNIRT_STATUS_OK);
  EXPECT_EQ(minimal_caps.features, 0u);

  int32_t count = 0;
  ASSERT_EQ(omnirt_get_device_count(good_, &count), OMNIRT_STATUS_OK);
  EXPECT_EQ(count, 1);
  omnirt_device_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(omnirt_get_device_info(good_, 0, &info), OMNIRT_STATUS_OK);
  EXPECT_STREQ(info.name, "Fake Device 0");
  EXPECT_STREQ(info.arch, "fake64");
  EXPECT_EQ(info.total_memory_bytes, uint64_t{1} << 30);
  EXPECT_EQ(info.compute_units, 4);

  const omnirt_op_set* sets = nullptr;
  size_t num_sets = 0;
  ASSERT_EQ(omnirt_list_op_sets(good_, &sets, &num_sets), OMNIRT_STATUS_OK);
  ASSERT_EQ(num_sets, 1u);
  EXPECT_STREQ(sets[0].name, "omnirt.fake");
  EXPECT_EQ(sets[0].version, 1);
}

TEST_F(RoutingTest, NewerMinorPluginIsRoutedThroughTheSlotsBothKnow) {
  void* ptr = nullptr;
  ASSERT_EQ(omnirt_malloc(newminor_, 0, 32, &ptr), OMNIRT_STATUS_OK);
  omnirt_stream* s = nullptr;
  ASSERT_EQ(omnirt_stream_create(newminor_, 0, &s), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_memset_async(newminor_, ptr, 2, 32, s), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_stream_destroy(newminor_, s), OMNIRT_STATUS_OK);
  EXPECT_EQ(static_cast<unsigned char*>(ptr)[31], 2);
  EXPECT_EQ(omnirt_free(newminor_, 0, ptr), OMNIRT_STATUS_OK);
}

TEST(ErrorsAndVersions, StatusNamesAreStable) {
  const char* names[] = {"OK",           "INVALID_ARGUMENT", "NOT_FOUND", "NOT_SUPPORTED",
                         "UNAVAILABLE",  "OUT_OF_MEMORY",    "INCOMPATIBLE", "INTERNAL",
                         "NOT_READY",    "ALREADY_EXISTS",   "OUT_OF_RANGE", "DEVICE_LOST",
                         "TIMEOUT"};
  for (int32_t status = 0; status < 13; ++status) EXPECT_STREQ(omnirt_status_name(status), names[status]);
  EXPECT_STREQ(omnirt_status_name(13), "UNKNOWN_STATUS");
  EXPECT_STREQ(omnirt_status_name(-1), "UNKNOWN_STATUS");
}

TEST(ErrorsAndVersions, LibraryReportsItsVersions) {
  EXPECT_EQ(omnirt_abi_version(), OMNIRT_ABI_VERSION);
  EXPECT_THAT(omnirt_library_version(), ::testing::MatchesRegex("[0-9]+\\.[0-9]+\\.[0-9]+"));
}

TEST(ErrorsAndVersions, LastErrorIsNeverNull) {
  const omnirt_error_info* error = omnirt_last_error();
  ASSERT_NE(error, nullptr);
  EXPECT_NE(error->message, nullptr);
  EXPECT_NE(error->backend, nullptr);
}

}  // namespace
}  // namespace omnirt_test
