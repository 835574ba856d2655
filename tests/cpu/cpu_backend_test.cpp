// CpuBackend in-process: device facts, memory calls and their ordering against
// streams, and argument errors. The same class behind the C ABI is covered by
// cpu_plugin_test.cpp, and behind the host by cpu_host_test.cpp.
#include "cpu_backend.h"

#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace omnirt::cpu {
namespace {

using namespace std::chrono_literals;
using testing::Gate;
using testing::status_of;
using Bytes = std::vector<unsigned char>;

class CpuBackendTest : public ::testing::Test {
 protected:
  omnirt_memory_stats stats() {
    omnirt_memory_stats s{};
    backend_.memory_stats(0, s);
    return s;
  }
  CpuBackend backend_;
};

uint64_t meminfo_kib(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string name;
  uint64_t value = 0;
  std::string unit;
  while (in >> name >> value >> unit) {
    if (name == key + ":") return value;
  }
  return 0;
}

TEST_F(CpuBackendTest, CapabilitiesNameExactlyTheRuntimeFeatures) {
  omnirt_capabilities caps{};
  backend_.capabilities(caps);
  EXPECT_EQ(caps.dl_device_type, kDLCPU);
  EXPECT_EQ(caps.device_count, 1);
  // Memory, streams and events; modules and named ops are tested with them.
  const uint64_t runtime_features = ~(OMNIRT_FEATURE_MODULES | OMNIRT_FEATURE_COMPILE |
                                      OMNIRT_FEATURE_NAMED_OPS);
  EXPECT_EQ(caps.features & runtime_features,
            OMNIRT_FEATURE_HOST_ALLOC | OMNIRT_FEATURE_ASYNC_COPY |
                OMNIRT_FEATURE_STREAM_ORDERED_ALLOC | OMNIRT_FEATURE_STREAMS |
                OMNIRT_FEATURE_EVENTS | OMNIRT_FEATURE_EVENT_TIMING |
                OMNIRT_FEATURE_STREAM_WAIT_EVENT | OMNIRT_FEATURE_MEM_INFO |
                OMNIRT_FEATURE_MEMORY_STATS | OMNIRT_FEATURE_GRAPH_CAPTURE |
                OMNIRT_FEATURE_DEFAULT_STREAM);
  EXPECT_EQ(caps.dtypes, (1u << OMNIRT_DTYPE_COUNT_1_0) - 1);
  EXPECT_STREQ(caps.vendor, "cpu");
  EXPECT_TRUE(backend_.is_available().available);
  EXPECT_EQ(backend_.device_count(), 1);
}

TEST_F(CpuBackendTest, DeviceInfoDescribesThisMachine) {
  omnirt_device_info info{};
  backend_.device_info(0, info);
  utsname system{};
  ASSERT_EQ(uname(&system), 0);
  EXPECT_STREQ(info.arch, system.machine);
  EXPECT_GT(std::strlen(info.name), 0u);
  EXPECT_EQ(info.dl_device_type, kDLCPU);
  EXPECT_EQ(info.compute_units, sysconf(_SC_NPROCESSORS_ONLN));
  // sysconf and /proc/meminfo count the same pages.
  EXPECT_EQ(info.total_memory_bytes, meminfo_kib("MemTotal") * 1024);
}

TEST_F(CpuBackendTest, MemInfoReadsMemAvailableAndMemTotal) {
  size_t free_bytes = 0, total_bytes = 0;
  backend_.mem_get_info(0, free_bytes, total_bytes);
  EXPECT_EQ(total_bytes, meminfo_kib("MemTotal") * 1024);
  EXPECT_GT(free_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);
}

TEST_F(CpuBackendTest, DeviceAndPinnedMemoryRoundTrip) {
  const size_t n = 10000;
  auto* device = static_cast<unsigned char*>(backend_.malloc_device(0, n));
  auto* pinned = static_cast<unsigned char*>(backend_.malloc_host(n));
  Bytes in(n), out(n, 0);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<unsigned char>(i * 7);

  backend_.memcpy_sync(pinned, in.data(), n, OMNIRT_MEMCPY_HOST_TO_HOST);
  backend_.memcpy_sync(device, pinned, n, OMNIRT_MEMCPY_HOST_TO_DEVICE);
  backend_.memset_sync(device + 100, 0xEE, 50);
  backend_.memcpy_sync(out.data(), device, n, OMNIRT_MEMCPY_DEVICE_TO_HOST);
  for (size_t i = 100; i < 150; ++i) in[i] = 0xEE;
  EXPECT_EQ(out, in);

  EXPECT_EQ(stats().allocated_bytes, 2 * n);
  backend_.free_device(0, device);
  backend_.free_host(pinned);
  EXPECT_EQ(stats().allocated_bytes, 0u);
  EXPECT_EQ(stats().free_count, 2u);
}

TEST_F(CpuBackendTest, SyncCopyWaitsForEarlierDefaultStreamWork) {
  Bytes src(1 << 16, 0x01), dst(1 << 16, 0);
  Gate gate;
  backend_.resolve_stream(nullptr)->enqueue(gate.task());
  backend_.memset_async(src.data(), 0x7C, src.size(), nullptr);
  gate.open_after(20ms);
  backend_.memcpy_sync(dst.data(), src.data(), dst.size(), OMNIRT_MEMCPY_DEVICE_TO_DEVICE);
  EXPECT_EQ(dst, Bytes(1 << 16, 0x7C));
}

TEST_F(CpuBackendTest, SyncSetWaitsForEarlierDefaultStreamWork) {
  Bytes buffer(1 << 16, 0);
  Gate gate;
  backend_.resolve_stream(nullptr)->enqueue(gate.task());
  backend_.memset_async(buffer.data(), 0x11, buffer.size(), nullptr);
  gate.open_after(20ms);
  backend_.memset_sync(buffer.data(), 0x22, buffer.size());
  EXPECT_EQ(buffer, Bytes(1 << 16, 0x22));  // not overwritten later by the async 0x11
  backend_.device_synchronize(0);
  EXPECT_EQ(buffer, Bytes(1 << 16, 0x22));
}

// stream_get_default's handle is the stream NULL stands for: work on it is
// what sync calls and NULL-stream runs wait for, and events on it time it.
TEST_F(CpuBackendTest, DefaultStreamHandleIsTheNullStream) {
  omnirt_stream* handle = backend_.stream_get_default(0);
  ASSERT_NE(handle, nullptr);
  EXPECT_EQ(backend_.stream_get_default(0), handle);
  EXPECT_EQ(backend_.resolve_stream(handle), backend_.resolve_stream(nullptr));

  Bytes src(1 << 16, 0x01), dst(1 << 16, 0);
  omnirt_event* start = backend_.event_create(0);
  omnirt_event* end = backend_.event_create(0);
  Gate gate;
  backend_.event_record(start, handle);
  backend_.resolve_stream(handle)->enqueue(gate.task());
  backend_.memset_async(src.data(), 0x7C, src.size(), handle);
  backend_.event_record(end, handle);
  EXPECT_FALSE(backend_.stream_query(nullptr));
  gate.open_after(30ms);
  backend_.memcpy_sync(dst.data(), src.data(), dst.size(), OMNIRT_MEMCPY_HOST_TO_HOST);
  EXPECT_EQ(dst, Bytes(1 << 16, 0x7C));
  backend_.event_synchronize(end);
  EXPECT_GE(backend_.event_elapsed_time(start, end), 25.0f) << "the gate held the stream 30 ms";

  EXPECT_EQ(status_of([&] { backend_.stream_destroy(handle); }), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.stream_begin_capture(handle); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.stream_get_default(1); }), OMNIRT_STATUS_OUT_OF_RANGE);
  backend_.stream_synchronize(handle);  // still the backend's, and usable
  backend_.event_destroy(start);
  backend_.event_destroy(end);
}

TEST_F(CpuBackendTest, AsyncCopyAndSetRunInStreamOrder) {
  omnirt_stream* stream = backend_.stream_create(0);
  Bytes a(1 << 20, 0), b(1 << 20, 0);
  Gate gate;
  backend_.resolve_stream(stream)->enqueue(gate.task());
  backend_.memset_async(a.data(), 0x33, a.size(), stream);
  backend_.memcpy_async(b.data(), a.data(), b.size(), OMNIRT_MEMCPY_DEVICE_TO_DEVICE, stream);
  backend_.memset_async(a.data(), 0x44, a.size() / 2, stream);
  EXPECT_FALSE(backend_.stream_query(stream));
  EXPECT_EQ(b[0], 0);
  gate.open();
  backend_.stream_synchronize(stream);
  EXPECT_TRUE(backend_.stream_query(stream));
  EXPECT_EQ(b, Bytes(1 << 20, 0x33));
  EXPECT_EQ(a[0], 0x44);
  EXPECT_EQ(a.back(), 0x33);
  backend_.stream_destroy(stream);
}

TEST_F(CpuBackendTest, StreamOrderedFreeWaitsForEarlierWork) {
  omnirt_stream* stream = backend_.stream_create(0);
  void* ptr = backend_.malloc_async(4096, stream);
  ASSERT_NE(ptr, nullptr);
  EXPECT_EQ(stats().allocated_bytes, 4096u);
  Gate gate;
  backend_.resolve_stream(stream)->enqueue(gate.task());
  backend_.memset_async(ptr, 0x5, 4096, stream);
  backend_.free_async(ptr, stream);

  EXPECT_EQ(stats().allocated_bytes, 4096u);  // still held: the stream has not got there
  EXPECT_EQ(stats().free_count, 0u);
  EXPECT_EQ(status_of([&] { backend_.free_device(0, ptr); }), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.free_async(ptr, stream); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  gate.open();
  backend_.stream_synchronize(stream);
  EXPECT_EQ(stats().allocated_bytes, 0u);
  EXPECT_EQ(stats().free_count, 1u);
  backend_.free_async(nullptr, stream);
  backend_.stream_destroy(stream);
}

TEST_F(CpuBackendTest, StreamOrderedFreeAcceptsDeviceMemoryOnly) {
  void* device = backend_.malloc_device(0, 64);
  void* pinned = backend_.malloc_host(64);
  EXPECT_EQ(status_of([&] { backend_.free_async(pinned, nullptr); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  backend_.free_async(device, nullptr);
  backend_.device_synchronize(0);
  EXPECT_EQ(stats().allocated_bytes, 64u);
  backend_.free_host(pinned);
}

TEST_F(CpuBackendTest, StreamDestroyRunsQueuedWorkFirst) {
  omnirt_stream* stream = backend_.stream_create(0);
  Bytes buffer(1 << 16, 0);
  Gate gate;
  backend_.resolve_stream(stream)->enqueue(gate.task());
  backend_.memset_async(buffer.data(), 0x66, buffer.size(), stream);
  gate.open_after(20ms);
  backend_.stream_destroy(stream);
  EXPECT_EQ(buffer, Bytes(1 << 16, 0x66));
  EXPECT_EQ(status_of([&] { backend_.stream_query(stream); }), OMNIRT_STATUS_INVALID_ARGUMENT);
  backend_.stream_destroy(nullptr);
}

TEST_F(CpuBackendTest, DeviceSynchronizeWaitsForEveryStream) {
  omnirt_stream* first = backend_.stream_create(0);
  omnirt_stream* second = backend_.stream_create(0);
  Bytes a(4096, 0), b(4096, 0), c(4096, 0);
  Gate gate;
  for (omnirt_stream* s : {first, second, static_cast<omnirt_stream*>(nullptr)}) {
    backend_.resolve_stream(s)->enqueue(gate.task());
  }
  backend_.memset_async(a.data(), 1, a.size(), first);
  backend_.memset_async(b.data(), 2, b.size(), second);
  backend_.memset_async(c.data(), 3, c.size(), nullptr);
  gate.open_after(20ms);
  backend_.device_synchronize(0);
  EXPECT_EQ(a, Bytes(4096, 1));
  EXPECT_EQ(b, Bytes(4096, 2));
  EXPECT_EQ(c, Bytes(4096, 3));
  EXPECT_TRUE(backend_.stream_query(first));
  EXPECT_TRUE(backend_.stream_query(second));
  EXPECT_TRUE(backend_.stream_query(nullptr));
}

TEST_F(CpuBackendTest, DeviceIndexOtherThanZeroIsOutOfRange) {
  for (int32_t device : {-1, 1, 7}) {
    SCOPED_TRACE(device);
    omnirt_device_info info{};
    omnirt_memory_stats s{};
    size_t free_bytes = 0, total_bytes = 0;
    EXPECT_EQ(status_of([&] { backend_.device_info(device, info); }), OMNIRT_STATUS_OUT_OF_RANGE);
    EXPECT_EQ(status_of([&] { backend_.malloc_device(device, 16); }), OMNIRT_STATUS_OUT_OF_RANGE);
    EXPECT_EQ(status_of([&] { backend_.free_device(device, nullptr); }),
              OMNIRT_STATUS_OUT_OF_RANGE);
    EXPECT_EQ(status_of([&] { backend_.mem_get_info(device, free_bytes, total_bytes); }),
              OMNIRT_STATUS_OUT_OF_RANGE);
    EXPECT_EQ(status_of([&] { backend_.memory_stats(device, s); }), OMNIRT_STATUS_OUT_OF_RANGE);
    EXPECT_EQ(status_of([&] { backend_.reset_memory_stats(device); }),
              OMNIRT_STATUS_OUT_OF_RANGE);
    EXPECT_EQ(status_of([&] { backend_.device_synchronize(device); }),
              OMNIRT_STATUS_OUT_OF_RANGE);
    EXPECT_EQ(status_of([&] { backend_.stream_create(device); }), OMNIRT_STATUS_OUT_OF_RANGE);
    EXPECT_EQ(status_of([&] { backend_.event_create(device); }), OMNIRT_STATUS_OUT_OF_RANGE);
  }
  EXPECT_EQ(stats().alloc_count, 0u);
}

TEST_F(CpuBackendTest, BadCopyAndSetArgumentsAreInvalidArgument) {
  unsigned char buffer[16] = {};
  for (int32_t kind : {-1, 4, 100}) {
    EXPECT_EQ(status_of([&] { backend_.memcpy_sync(buffer, buffer + 8, 8, kind); }),
              OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(status_of([&] { backend_.memcpy_async(buffer, buffer + 8, 8, kind, nullptr); }),
              OMNIRT_STATUS_INVALID_ARGUMENT);
  }
  EXPECT_EQ(status_of([&] { backend_.memcpy_sync(nullptr, buffer, 8, OMNIRT_MEMCPY_HOST_TO_HOST); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.memcpy_sync(buffer, nullptr, 8, OMNIRT_MEMCPY_HOST_TO_HOST); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.memset_sync(nullptr, 0, 8); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.memset_async(nullptr, 0, 8, nullptr); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  // Zero bytes touch nothing, so NULL is fine there.
  backend_.memcpy_sync(nullptr, nullptr, 0, OMNIRT_MEMCPY_HOST_TO_HOST);
  backend_.memset_sync(nullptr, 0, 0);
}

TEST_F(CpuBackendTest, UnknownStreamHandlesAreInvalidArgument) {
  auto* bogus = reinterpret_cast<omnirt_stream*>(&backend_);
  unsigned char buffer[8] = {};
  EXPECT_EQ(status_of([&] { backend_.stream_synchronize(bogus); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.memset_async(buffer, 0, 8, bogus); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.malloc_async(8, bogus); }), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { backend_.stream_destroy(bogus); }), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(stats().alloc_count, 0u);
}

TEST_F(CpuBackendTest, MemoryStillHeldIsReleasedWithTheBackend) {
  // Run under AddressSanitizer, a leak here fails the test.
  backend_.malloc_device(0, 1 << 20);
  backend_.malloc_host(1 << 10);
  EXPECT_EQ(stats().allocated_bytes, (1u << 20) + (1u << 10));
}

}  // namespace
}  // namespace omnirt::cpu
