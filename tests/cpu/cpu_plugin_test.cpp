// libomnirt_backend_cpu.so through its C ABI: entry and negotiation, the
// vtable against the capability bits, the load-time rules, and the memory,
// stream and event slots end to end.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cpu_test_paths.h"
#include "plugin_under_test.h"
#include "test_support.h"

namespace omnirt::cpu::testing {
namespace {

constexpr size_t kBig = size_t{16} << 20;  // long enough that ordering bugs show

class CpuPlugin : public ::testing::Test {
 protected:
  PluginLibrary library_{OMNIRT_TEST_CPU_PLUGIN_PATH};
  const omnirt_backend_vtable* v_ = library_.entry();
};

// An instance plus helpers for the slots most tests need.
class CpuPluginCalls : public CpuPlugin {
 protected:
  void* device_alloc(size_t size) {
    void* ptr = nullptr;
    EXPECT_EQ(v_->malloc_device(s(), 0, size, &ptr), OMNIRT_STATUS_OK);
    return ptr;
  }
  omnirt_stream* new_stream() {
    omnirt_stream* stream = nullptr;
    EXPECT_EQ(v_->stream_create(s(), 0, &stream), OMNIRT_STATUS_OK);
    return stream;
  }
  omnirt_event* new_event() {
    omnirt_event* event = nullptr;
    EXPECT_EQ(v_->event_create(s(), 0, &event), OMNIRT_STATUS_OK);
    return event;
  }
  omnirt_memory_stats stats() {
    omnirt_memory_stats out{};
    out.struct_size = sizeof out;
    EXPECT_EQ(v_->memory_stats(s(), 0, &out), OMNIRT_STATUS_OK);
    return out;
  }
  bool all_bytes_are(const void* ptr, size_t size, unsigned char value) {
    std::vector<unsigned char> host(size);
    EXPECT_EQ(v_->memcpy_sync(s(), host.data(), ptr, size, OMNIRT_MEMCPY_DEVICE_TO_HOST),
              OMNIRT_STATUS_OK);
    return host == std::vector<unsigned char>(size, value);
  }
  omnirt_backend_state* s() const { return instance_.state(); }

  PluginInstance instance_{v_};
};

TEST_F(CpuPlugin, EntryAcceptsEveryHostRangeHoldingMajorOne) {
  ASSERT_NE(v_, nullptr);
  EXPECT_NE(library_.entry(OMNIRT_MAKE_VERSION(1, 0), OMNIRT_MAKE_VERSION(1, 9)), nullptr);
  EXPECT_NE(library_.entry(OMNIRT_MAKE_VERSION(0, 3), OMNIRT_MAKE_VERSION(1, 0)), nullptr);
  EXPECT_NE(library_.entry(OMNIRT_MAKE_VERSION(1, 7), OMNIRT_MAKE_VERSION(3, 0)), nullptr);
}

TEST_F(CpuPlugin, EntryRefusesOtherMajorsWithIncompatible) {
  last_error() = {};
  EXPECT_EQ(library_.entry(OMNIRT_MAKE_VERSION(2, 0), OMNIRT_MAKE_VERSION(3, 0)), nullptr);
  EXPECT_EQ(last_error().status, OMNIRT_STATUS_INCOMPATIBLE);
  EXPECT_NE(last_error().message.find("major 1"), std::string::npos) << last_error().message;
  EXPECT_EQ(library_.entry(OMNIRT_MAKE_VERSION(0, 0), OMNIRT_MAKE_VERSION(0, 9)), nullptr);

  omnirt_backend_entry_args short_args = {sizeof(size_t), OMNIRT_ABI_VERSION, OMNIRT_ABI_VERSION,
                                          test_host_services()};
  EXPECT_EQ(library_.entry_function()(&short_args), nullptr);
  EXPECT_EQ(library_.entry_function()(nullptr), nullptr);
}

TEST_F(CpuPlugin, VtableIdentifiesTheCpuBackend) {
  ASSERT_NE(v_, nullptr);
  EXPECT_EQ(v_->struct_size, sizeof(omnirt_backend_vtable));
  EXPECT_EQ(v_->abi_version, OMNIRT_ABI_VERSION);
  EXPECT_STREQ(v_->name, "cpu");
  EXPECT_STREQ(v_->plugin_version, OMNIRT_TEST_CPU_PLUGIN_VERSION);
}

// An advertised feature has all its slots. A runtime feature that is not
// advertised has none; module and op slots may exist without their bit (they
// then answer NOT_SUPPORTED, e.g. when the engine was not built).
TEST_F(CpuPluginCalls, OptionalSlotsMatchTheAdvertisedFeatures) {
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(v_->get_capabilities(s(), &caps), OMNIRT_STATUS_OK);
  const struct {
    uint64_t feature;
    std::vector<const void*> slots;
    bool slots_need_the_bit = true;
  } features[] = {
      {OMNIRT_FEATURE_HOST_ALLOC, {(void*)v_->malloc_host, (void*)v_->free_host}},
      {OMNIRT_FEATURE_ASYNC_COPY, {(void*)v_->memcpy_async, (void*)v_->memset_async}},
      {OMNIRT_FEATURE_STREAM_ORDERED_ALLOC, {(void*)v_->malloc_async, (void*)v_->free_async}},
      {OMNIRT_FEATURE_STREAMS,
       {(void*)v_->stream_create, (void*)v_->stream_destroy, (void*)v_->stream_synchronize,
        (void*)v_->stream_query}},
      {OMNIRT_FEATURE_EVENTS,
       {(void*)v_->event_create, (void*)v_->event_destroy, (void*)v_->event_record,
        (void*)v_->event_query, (void*)v_->event_synchronize}},
      {OMNIRT_FEATURE_EVENT_TIMING, {(void*)v_->event_elapsed_time}},
      {OMNIRT_FEATURE_STREAM_WAIT_EVENT, {(void*)v_->stream_wait_event}},
      {OMNIRT_FEATURE_MEM_INFO, {(void*)v_->mem_get_info}},
      {OMNIRT_FEATURE_MEMORY_STATS, {(void*)v_->memory_stats, (void*)v_->reset_memory_stats}},
      {OMNIRT_FEATURE_GRAPH_CAPTURE,
       {(void*)v_->stream_begin_capture, (void*)v_->stream_end_capture, (void*)v_->graph_launch,
        (void*)v_->graph_destroy}},
      {OMNIRT_FEATURE_MODULES,
       {(void*)v_->module_load, (void*)v_->executable_run, (void*)v_->executable_destroy},
       false},
      {OMNIRT_FEATURE_NAMED_OPS,
       {(void*)v_->list_op_sets, (void*)v_->list_ops, (void*)v_->op_run},
       false},
  };
  for (const auto& f : features) {
    const bool advertised = (caps.features & f.feature) != 0;
    for (size_t i = 0; i < f.slots.size(); ++i) {
      const bool present = f.slots[i] != nullptr;
      if (advertised || f.slots_need_the_bit) {
        EXPECT_EQ(present, advertised) << "feature bit " << f.feature << ", slot " << i;
      }
    }
  }
  EXPECT_EQ(caps.features & OMNIRT_FEATURE_PEER_COPY, 0u) << "one device: no peers";
}

TEST_F(CpuPlugin, CreateAvailabilityAndCapabilitiesStartNoThreadAndLoadNoEngine) {
  const int threads = thread_count();
  {
    PluginInstance instance(v_);
    int32_t available = 0;
    char reason[64] = "untouched";
    ASSERT_EQ(v_->is_available(instance.state(), &available, reason, sizeof reason),
              OMNIRT_STATUS_OK);
    EXPECT_EQ(available, 1);
    EXPECT_STREQ(reason, "");
    omnirt_capabilities caps{};
    caps.struct_size = sizeof caps;
    ASSERT_EQ(v_->get_capabilities(instance.state(), &caps), OMNIRT_STATUS_OK);
    EXPECT_EQ(thread_count(), threads);
  }
  EXPECT_EQ(thread_count(), threads);
  std::ifstream maps("/proc/self/maps");
  std::stringstream mapped;
  mapped << maps.rdbuf();
  EXPECT_EQ(mapped.str().find("libtorch"), std::string::npos);
  EXPECT_EQ(mapped.str().find("libc10"), std::string::npos);
}

TEST_F(CpuPluginCalls, SizedStructsAreWrittenOnlyUpToTheCallersSize) {
  struct {
    omnirt_device_info info;
    unsigned char guard[8];
  } out;
  std::memset(&out, 0xCD, sizeof out);
  out.info.struct_size = offsetof(omnirt_device_info, arch);  // an older, shorter layout
  ASSERT_EQ(v_->get_device_info(s(), 0, &out.info), OMNIRT_STATUS_OK);
  EXPECT_EQ(out.info.struct_size, offsetof(omnirt_device_info, arch));
  EXPECT_EQ(out.info.dl_device_type, kDLCPU);
  EXPECT_GT(std::strlen(out.info.name), 0u);
  const auto* tail = reinterpret_cast<const unsigned char*>(&out.info) + out.info.struct_size;
  for (const unsigned char* p = tail; p < out.guard + sizeof out.guard; ++p) {
    ASSERT_EQ(*p, 0xCD) << "byte " << (p - tail) << " past the caller's struct_size was written";
  }
}

TEST_F(CpuPluginCalls, MemoryRoundTripsThroughEverySyncSlot) {
  const size_t n = 1 << 20;
  void* device = device_alloc(n);
  void* pinned = nullptr;
  ASSERT_EQ(v_->malloc_host(s(), n, &pinned), OMNIRT_STATUS_OK);
  std::vector<unsigned char> in(n), out(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<unsigned char>(i % 251);

  ASSERT_EQ(v_->memcpy_sync(s(), pinned, in.data(), n, OMNIRT_MEMCPY_HOST_TO_HOST), OMNIRT_STATUS_OK);
  ASSERT_EQ(v_->memcpy_sync(s(), device, pinned, n, OMNIRT_MEMCPY_HOST_TO_DEVICE), OMNIRT_STATUS_OK);
  void* copy = device_alloc(n);
  ASSERT_EQ(v_->memcpy_sync(s(), copy, device, n, OMNIRT_MEMCPY_DEVICE_TO_DEVICE), OMNIRT_STATUS_OK);
  ASSERT_EQ(v_->memcpy_sync(s(), out.data(), copy, n, OMNIRT_MEMCPY_DEVICE_TO_HOST), OMNIRT_STATUS_OK);
  EXPECT_EQ(out, in);
  ASSERT_EQ(v_->memset_sync(s(), copy, 0x3C, n), OMNIRT_STATUS_OK);
  EXPECT_TRUE(all_bytes_are(copy, n, 0x3C));

  auto st = stats();
  EXPECT_EQ(st.allocated_bytes, 3 * n);
  EXPECT_EQ(st.alloc_count, 3u);
  EXPECT_EQ(v_->free_device(s(), 0, device), OMNIRT_STATUS_OK);
  EXPECT_EQ(v_->free_device(s(), 0, copy), OMNIRT_STATUS_OK);
  EXPECT_EQ(v_->free_host(s(), pinned), OMNIRT_STATUS_OK);
  st = stats();
  EXPECT_EQ(st.allocated_bytes, 0u);
  EXPECT_EQ(st.reserved_bytes, 0u);
  EXPECT_EQ(st.peak_bytes, 3 * n);
  EXPECT_EQ(st.free_count, 3u);
  ASSERT_EQ(v_->reset_memory_stats(s(), 0), OMNIRT_STATUS_OK);
  st = stats();
  EXPECT_EQ(st.peak_bytes, 0u);
  EXPECT_EQ(st.alloc_count, 0u);
  EXPECT_EQ(st.free_count, 0u);

  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(v_->mem_get_info(s(), 0, &free_bytes, &total_bytes), OMNIRT_STATUS_OK);
  EXPECT_GT(free_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);
}

TEST_F(CpuPluginCalls, FailuresReturnTheirStatusAndRecordAMessage) {
  void* ptr = device_alloc(64);
  ASSERT_EQ(v_->free_device(s(), 0, ptr), OMNIRT_STATUS_OK);
  last_error() = {};
  EXPECT_EQ(v_->free_device(s(), 0, ptr), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(last_error().status, OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(last_error().message.find("not a live allocation"), std::string::npos);

  EXPECT_EQ(v_->malloc_device(s(), 1, 64, &ptr), OMNIRT_STATUS_OUT_OF_RANGE);
  EXPECT_NE(last_error().message.find("device 1"), std::string::npos) << last_error().message;
  char buffer[8];
  EXPECT_EQ(v_->memcpy_sync(s(), buffer, buffer, 4, 9), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(last_error().message.find("kind 9"), std::string::npos) << last_error().message;
  EXPECT_EQ(v_->memset_sync(s(), nullptr, 0, 4), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(v_->malloc_device(s(), 0, SIZE_MAX, &ptr), OMNIRT_STATUS_OUT_OF_MEMORY);
  ASSERT_EQ(v_->malloc_device(s(), 0, 0, &ptr), OMNIRT_STATUS_OK);
  EXPECT_EQ(ptr, nullptr);
  EXPECT_EQ(v_->free_device(s(), 0, nullptr), OMNIRT_STATUS_OK);
}

TEST_F(CpuPluginCalls, LongMemsetThenCopyOnOneStreamCopiesTheMemsetsResult) {
  void* a = device_alloc(kBig);
  void* b = device_alloc(kBig);
  for (omnirt_stream* stream : {new_stream(), static_cast<omnirt_stream*>(nullptr)}) {
    const unsigned char value = stream != nullptr ? 0xA1 : 0xB2;
    ASSERT_EQ(v_->memset_async(s(), a, value, kBig, stream), OMNIRT_STATUS_OK);
    ASSERT_EQ(v_->memcpy_async(s(), b, a, kBig, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, stream),
              OMNIRT_STATUS_OK);
    ASSERT_EQ(v_->stream_synchronize(s(), stream), OMNIRT_STATUS_OK);
    EXPECT_EQ(v_->stream_query(s(), stream), OMNIRT_STATUS_OK);
    EXPECT_TRUE(all_bytes_are(b, kBig, value));
    EXPECT_EQ(v_->stream_destroy(s(), stream), OMNIRT_STATUS_OK);
  }
  v_->free_device(s(), 0, a);
  v_->free_device(s(), 0, b);
}

TEST_F(CpuPluginCalls, WaitEventOrdersWorkAcrossStreams) {
  void* a = device_alloc(kBig);
  void* b = device_alloc(kBig);
  omnirt_stream* producer = new_stream();
  omnirt_stream* consumer = new_stream();
  omnirt_event* written = new_event();
  ASSERT_EQ(v_->memset_async(s(), a, 0x5A, kBig, producer), OMNIRT_STATUS_OK);
  ASSERT_EQ(v_->event_record(s(), written, producer), OMNIRT_STATUS_OK);
  ASSERT_EQ(v_->stream_wait_event(s(), consumer, written), OMNIRT_STATUS_OK);
  ASSERT_EQ(v_->memcpy_async(s(), b, a, kBig, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, consumer),
            OMNIRT_STATUS_OK);
  ASSERT_EQ(v_->stream_synchronize(s(), consumer), OMNIRT_STATUS_OK);
  EXPECT_EQ(v_->event_query(s(), written), OMNIRT_STATUS_OK);
  EXPECT_TRUE(all_bytes_are(b, kBig, 0x5A));
  EXPECT_EQ(v_->event_destroy(s(), written), OMNIRT_STATUS_OK);
  EXPECT_EQ(v_->stream_destroy(s(), producer), OMNIRT_STATUS_OK);
  EXPECT_EQ(v_->stream_destroy(s(), consumer), OMNIRT_STATUS_OK);
}

TEST_F(CpuPluginCalls, EventTimingMeasuresRealTime) {
  void* a = device_alloc(kBig);
  omnirt_stream* stream = new_stream();
  omnirt_event* start = new_event();
  omnirt_event* end = new_event();
  const auto before = std::chrono::steady_clock::now();
  ASSERT_EQ(v_->event_record(s(), start, stream), OMNIRT_STATUS_OK);
  for (int value = 0; value < 4; ++value) {
    ASSERT_EQ(v_->memset_async(s(), a, value, kBig, stream), OMNIRT_STATUS_OK);
  }
  ASSERT_EQ(v_->event_record(s(), end, stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(v_->event_synchronize(s(), end), OMNIRT_STATUS_OK);
  const std::chrono::duration<float, std::milli> wall = std::chrono::steady_clock::now() - before;

  float ms = -1;
  ASSERT_EQ(v_->event_elapsed_time(s(), start, end, &ms), OMNIRT_STATUS_OK);
  EXPECT_GT(ms, 0.0f);
  EXPECT_LE(ms, wall.count());

  omnirt_event* unrecorded = new_event();
  EXPECT_EQ(v_->event_query(s(), unrecorded), OMNIRT_STATUS_OK);
  EXPECT_EQ(v_->event_synchronize(s(), unrecorded), OMNIRT_STATUS_OK);
  EXPECT_EQ(v_->event_elapsed_time(s(), start, unrecorded, &ms), OMNIRT_STATUS_INVALID_ARGUMENT);
  v_->event_destroy(s(), unrecorded);
  v_->event_destroy(s(), start);
  v_->event_destroy(s(), end);
  v_->stream_destroy(s(), stream);
  v_->free_device(s(), 0, a);
}

TEST_F(CpuPluginCalls, StreamOrderedAllocationRoundTrips) {
  omnirt_stream* stream = new_stream();
  void* ptr = nullptr;
  ASSERT_EQ(v_->malloc_async(s(), kBig, stream, &ptr), OMNIRT_STATUS_OK);
  ASSERT_EQ(v_->memset_async(s(), ptr, 0x19, kBig, stream), OMNIRT_STATUS_OK);
  std::vector<unsigned char> host(kBig);
  ASSERT_EQ(v_->memcpy_async(s(), host.data(), ptr, kBig, OMNIRT_MEMCPY_DEVICE_TO_HOST, stream),
            OMNIRT_STATUS_OK);
  ASSERT_EQ(v_->free_async(s(), ptr, stream), OMNIRT_STATUS_OK);
  EXPECT_EQ(v_->free_async(s(), ptr, stream), OMNIRT_STATUS_INVALID_ARGUMENT);
  ASSERT_EQ(v_->device_synchronize(s(), 0), OMNIRT_STATUS_OK);
  EXPECT_EQ(host, std::vector<unsigned char>(kBig, 0x19));
  EXPECT_EQ(stats().allocated_bytes, 0u);
  EXPECT_EQ(stats().free_count, 1u);
  v_->stream_destroy(s(), stream);
}

TEST_F(CpuPluginCalls, GraphCaptureReplaysThroughTheVtable) {
  void* a = device_alloc(4096);
  omnirt_stream* stream = new_stream();
  ASSERT_EQ(v_->memset_sync(s(), a, 0, 4096), OMNIRT_STATUS_OK);
  ASSERT_EQ(v_->stream_begin_capture(s(), stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(v_->memset_async(s(), a, 0x6E, 4096, stream), OMNIRT_STATUS_OK);
  void* during = nullptr;
  EXPECT_EQ(v_->malloc_async(s(), 64, stream, &during), OMNIRT_STATUS_NOT_SUPPORTED);
  omnirt_graph* graph = nullptr;
  ASSERT_EQ(v_->stream_end_capture(s(), stream, &graph), OMNIRT_STATUS_OK);
  ASSERT_NE(graph, nullptr);
  ASSERT_EQ(v_->stream_synchronize(s(), stream), OMNIRT_STATUS_OK);
  EXPECT_TRUE(all_bytes_are(a, 4096, 0));
  ASSERT_EQ(v_->graph_launch(s(), graph, nullptr), OMNIRT_STATUS_OK);
  ASSERT_EQ(v_->stream_synchronize(s(), nullptr), OMNIRT_STATUS_OK);
  EXPECT_TRUE(all_bytes_are(a, 4096, 0x6E));
  EXPECT_EQ(v_->graph_destroy(s(), graph), OMNIRT_STATUS_OK);
  EXPECT_EQ(v_->graph_launch(s(), graph, nullptr), OMNIRT_STATUS_INVALID_ARGUMENT);
  v_->stream_destroy(s(), stream);
  v_->free_device(s(), 0, a);
}

TEST_F(CpuPluginCalls, InstancesShareNothing) {
  PluginInstance other(v_);
  void* ptr = device_alloc(1000);
  omnirt_memory_stats theirs{};
  theirs.struct_size = sizeof theirs;
  ASSERT_EQ(v_->memory_stats(other.state(), 0, &theirs), OMNIRT_STATUS_OK);
  EXPECT_EQ(theirs.allocated_bytes, 0u);
  EXPECT_EQ(stats().allocated_bytes, 1000u);
  EXPECT_EQ(v_->free_device(other.state(), 0, ptr), OMNIRT_STATUS_INVALID_ARGUMENT);

  omnirt_stream* mine = new_stream();
  EXPECT_EQ(v_->stream_synchronize(other.state(), mine), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(last_error().message.find("unknown stream"), std::string::npos) << last_error().message;
  v_->stream_destroy(s(), mine);
  v_->free_device(s(), 0, ptr);
}

}  // namespace
}  // namespace omnirt::cpu::testing
