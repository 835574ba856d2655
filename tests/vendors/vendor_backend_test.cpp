// The ascend and cambricon backends through libomnirt, each against its
// simulated vendor runtime: every mapped call with data checked, every
// NOT_SUPPORTED path, vendor codes and messages, the older SDK, availability.
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "vendor_test_support.h"

namespace omnirt::vendor_test {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kMappedFeatures =
    OMNIRT_FEATURE_HOST_ALLOC | OMNIRT_FEATURE_ASYNC_COPY | OMNIRT_FEATURE_STREAMS |
    OMNIRT_FEATURE_EVENTS | OMNIRT_FEATURE_EVENT_TIMING | OMNIRT_FEATURE_STREAM_WAIT_EVENT |
    OMNIRT_FEATURE_MEM_INFO | OMNIRT_FEATURE_MEMORY_STATS | OMNIRT_FEATURE_PEER_COPY |
    OMNIRT_FEATURE_DEFAULT_STREAM;
constexpr uint64_t kUnmappedFeatures = OMNIRT_FEATURE_STREAM_ORDERED_ALLOC |
                                       OMNIRT_FEATURE_GRAPH_CAPTURE | OMNIRT_FEATURE_MODULES |
                                       OMNIRT_FEATURE_COMPILE | OMNIRT_FEATURE_NAMED_OPS;
constexpr size_t kSimMemory = size_t{64} << 20;  // sim_core.h's default

using Bytes = std::vector<unsigned char>;

Bytes pattern(size_t size, unsigned seed) {
  Bytes bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>(i * 31 + seed);
  return bytes;
}

#define ASSERT_OK(call) ASSERT_EQ((call), OMNIRT_STATUS_OK) << last_message()
#define EXPECT_OK(call) EXPECT_EQ((call), OMNIRT_STATUS_OK) << last_message()

class VendorBackend : public ::testing::TestWithParam<const Vendor*> {
 protected:
  const Vendor& vendor() const { return *GetParam(); }

  // Only what a test sets points the backend at a runtime.
  void SetUp() override {
    for (const char* variable : vendor().variables) env_.unset(variable);
    for (const char* sw :
         {"OMNIRT_SIM_DEVICE_COUNT", "OMNIRT_SIM_MEMORY_BYTES", "OMNIRT_SIM_DEVICE_LOST_AFTER",
          "OMNIRT_SIM_TASK_DELAY_MS", "OMNIRT_SIM_FAIL_INIT"}) {
      env_.unset(sw);
    }
  }

  // A host whose backend runs on `library` (the simulated runtime by default).
  std::unique_ptr<Host> make_host(const char* library = nullptr,
                                  std::map<std::string, std::string> options = {}) {
    options["library"] = library != nullptr ? library : vendor().sim;
    auto host = std::make_unique<Host>(vendor(), options);
    EXPECT_EQ(host->create_status(), OMNIRT_STATUS_OK) << last_message();
    return host;
  }

  omnirt_backend* backend(const Host& host) {
    omnirt_backend* b = nullptr;
    EXPECT_EQ(omnirt_host_get_backend(host.get(), vendor().backend, &b), OMNIRT_STATUS_OK)
        << last_message();
    return b;
  }

  static omnirt_capabilities capabilities(omnirt_backend* b) {
    omnirt_capabilities caps{};
    caps.struct_size = sizeof caps;
    EXPECT_EQ(omnirt_get_capabilities(b, &caps), OMNIRT_STATUS_OK) << last_message();
    return caps;
  }

  static omnirt_memory_stats stats(omnirt_backend* b, int32_t device) {
    omnirt_memory_stats s{};
    s.struct_size = sizeof s;
    EXPECT_EQ(omnirt_get_memory_stats(b, device, &s), OMNIRT_STATUS_OK) << last_message();
    return s;
  }

  static size_t free_memory(omnirt_backend* b, int32_t device) {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    EXPECT_EQ(omnirt_mem_get_info(b, device, &free_bytes, &total_bytes), OMNIRT_STATUS_OK)
        << last_message();
    return free_bytes;
  }

  ScopedEnvironment env_;
};

TEST_P(VendorBackend, WithoutTheRuntimeIsUnavailableAndSaysWhereItLooked) {
  Host host(vendor(), {});
  ASSERT_EQ(host.create_status(), OMNIRT_STATUS_OK) << last_message();
  const omnirt_backend_info info = host.info();
  EXPECT_EQ(info.available, 0);
  const std::string reason = info.unavailable_reason;
  EXPECT_THAT(reason, HasSubstr(std::string(vendor().soname) + " not found"));
  EXPECT_THAT(reason, HasSubstr(std::string("$") + vendor().root_variable + "/lib64 (unset)"));
  EXPECT_THAT(reason, HasSubstr("LD_LIBRARY_PATH"));

  omnirt_backend* b = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host.get(), vendor().backend, &b), OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_THAT(last_message(), HasSubstr(vendor().soname));
  // Routed calls are refused cleanly; nothing crashes.
  void* ptr = nullptr;
  EXPECT_EQ(omnirt_malloc(host.any_backend(), 0, 64, &ptr), OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_EQ(ptr, nullptr);
}

TEST_P(VendorBackend, AMissingExplicitLibraryIsNamed) {
  Host host(vendor(), {{"library", "/nonexistent/lib64/" + std::string(vendor().soname)}});
  const omnirt_backend_info info = host.info();
  EXPECT_EQ(info.available, 0);
  EXPECT_THAT(std::string(info.unavailable_reason),
              HasSubstr("option library=/nonexistent/lib64/" + std::string(vendor().soname)));
}

TEST_P(VendorBackend, IsFoundThroughTheVendorsOwnVariable) {
  env_.set(vendor().root_variable, vendor().sim_root);
  Host host(vendor(), {});
  EXPECT_EQ(host.info().available, 1) << host.info().unavailable_reason;
  int32_t count = 0;
  ASSERT_OK(omnirt_get_device_count(backend(host), &count));
  EXPECT_EQ(count, 2);
}

TEST_P(VendorBackend, DiscoveryDoesNotLoadTheRuntime) {
  ASSERT_EQ(dlopen(vendor().sim, RTLD_NOW | RTLD_NOLOAD), nullptr)
      << "an earlier test left the simulated runtime loaded";
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  capabilities(b);
  EXPECT_EQ(dlopen(vendor().sim, RTLD_NOW | RTLD_NOLOAD), nullptr)
      << "create, is_available or get_capabilities loaded " << vendor().soname;
  int32_t count = 0;
  ASSERT_OK(omnirt_get_device_count(b, &count));
  void* loaded = dlopen(vendor().sim, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(loaded, nullptr) << "the first device call should load " << vendor().soname;
  if (loaded != nullptr) dlclose(loaded);
}

TEST_P(VendorBackend, DescribesDevicesAndCapabilities) {
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  int32_t count = 0;
  ASSERT_OK(omnirt_get_device_count(b, &count));
  ASSERT_EQ(count, 2);

  const omnirt_capabilities caps = capabilities(b);
  EXPECT_EQ(caps.dl_device_type, kDLExtDev);
  EXPECT_STREQ(caps.vendor, vendor().vendor_tag);
  EXPECT_EQ(caps.device_count, 2);
  EXPECT_EQ(caps.features, kMappedFeatures);
  EXPECT_EQ(caps.dtypes, 0u) << "no engine: the backend computes nothing itself";
  EXPECT_EQ(caps.num_module_formats, 0u);

  for (int32_t device = 0; device < count; ++device) {
    omnirt_device_info info{};
    info.struct_size = sizeof info;
    ASSERT_OK(omnirt_get_device_info(b, device, &info));
    EXPECT_EQ(info.index, device);
    EXPECT_EQ(info.dl_device_type, kDLExtDev);
    EXPECT_STREQ(info.name, vendor().device_name);
    EXPECT_STREQ(info.arch, vendor().arch);
    EXPECT_EQ(info.total_memory_bytes, kSimMemory);
    EXPECT_EQ(info.compute_units, vendor().compute_units);
  }
  omnirt_device_info info{};
  info.struct_size = sizeof info;
  EXPECT_NE(omnirt_get_device_info(b, 2, &info), OMNIRT_STATUS_OK);
}

// The device a copy runs on is the one that owns the memory: each device's
// free memory moves only with its own allocations.
TEST_P(VendorBackend, CopiesAndSetsDataOnEachDevice) {
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  constexpr size_t kSize = 4096;
  for (int32_t device = 0; device < 2; ++device) {
    const size_t other_free = free_memory(b, 1 - device);
    const size_t free_before = free_memory(b, device);
    void* a = nullptr;
    void* c = nullptr;
    ASSERT_OK(omnirt_malloc(b, device, kSize, &a));
    ASSERT_OK(omnirt_malloc(b, device, kSize, &c));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 256, 0u);
    EXPECT_LT(free_memory(b, device), free_before);
    EXPECT_EQ(free_memory(b, 1 - device), other_free);

    const Bytes in = pattern(kSize, device + 1);
    ASSERT_OK(omnirt_memcpy(b, a, in.data(), kSize, OMNIRT_MEMCPY_HOST_TO_DEVICE));
    ASSERT_OK(omnirt_memset(b, static_cast<char*>(a) + 100, 0xAB, 50));
    ASSERT_OK(omnirt_memcpy(b, c, a, kSize, OMNIRT_MEMCPY_DEVICE_TO_DEVICE));
    Bytes out(kSize);
    ASSERT_OK(omnirt_memcpy(b, out.data(), c, kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST));
    Bytes expected = in;
    std::fill(expected.begin() + 100, expected.begin() + 150, 0xAB);
    EXPECT_EQ(out, expected);

    Bytes copy(kSize);
    ASSERT_OK(omnirt_memcpy(b, copy.data(), in.data(), kSize, OMNIRT_MEMCPY_HOST_TO_HOST));
    EXPECT_EQ(copy, in);
    ASSERT_OK(omnirt_device_synchronize(b, device));
    ASSERT_OK(omnirt_free(b, device, a));
    ASSERT_OK(omnirt_free(b, device, c));
    EXPECT_EQ(free_memory(b, device), free_before);
  }
  void* none = &none;
  ASSERT_OK(omnirt_malloc(b, 0, 0, &none));
  EXPECT_EQ(none, nullptr);
  EXPECT_OK(omnirt_free(b, 0, nullptr));
}

TEST_P(VendorBackend, PinnedMemoryAndAsyncCopiesOnStreams) {
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  constexpr size_t kSize = 8192;
  void* pinned_in = nullptr;
  void* pinned_out = nullptr;
  ASSERT_OK(omnirt_malloc_host(b, kSize, &pinned_in));
  ASSERT_OK(omnirt_malloc_host(b, kSize, &pinned_out));
  const Bytes in = pattern(kSize, 7);
  std::memcpy(pinned_in, in.data(), kSize);

  for (int32_t device = 0; device < 2; ++device) {
    omnirt_stream* stream = nullptr;
    ASSERT_OK(omnirt_stream_create(b, device, &stream));
    void* d = nullptr;
    ASSERT_OK(omnirt_malloc(b, device, kSize, &d));
    ASSERT_OK(omnirt_memcpy_async(b, d, pinned_in, kSize, OMNIRT_MEMCPY_HOST_TO_DEVICE, stream));
    ASSERT_OK(omnirt_memset_async(b, d, 0x5A, 16, stream));
    ASSERT_OK(omnirt_memcpy_async(b, pinned_out, d, kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST, stream));
    ASSERT_OK(omnirt_stream_synchronize(b, stream));
    EXPECT_EQ(omnirt_stream_query(b, stream), OMNIRT_STATUS_OK);
    Bytes expected = in;
    std::fill(expected.begin(), expected.begin() + 16, 0x5A);
    EXPECT_EQ(0, std::memcmp(pinned_out, expected.data(), kSize)) << "device " << device;

    // Host to host, in stream order; device_synchronize waits for the stream.
    Bytes host_copy(kSize);
    ASSERT_OK(omnirt_memcpy_async(b, host_copy.data(), pinned_out, kSize,
                                  OMNIRT_MEMCPY_HOST_TO_HOST, stream));
    ASSERT_OK(omnirt_stream_synchronize(b, stream));
    EXPECT_EQ(host_copy, expected);
    ASSERT_OK(omnirt_memset_async(b, d, 0x11, kSize, stream));
    ASSERT_OK(omnirt_device_synchronize(b, device));
    Bytes out(kSize);
    ASSERT_OK(omnirt_memcpy(b, out.data(), d, kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST));
    EXPECT_EQ(out, Bytes(kSize, 0x11));

    ASSERT_OK(omnirt_free(b, device, d));
    ASSERT_OK(omnirt_stream_destroy(b, stream));
  }
  ASSERT_OK(omnirt_free_host(b, pinned_in));
  ASSERT_OK(omnirt_free_host(b, pinned_out));
  EXPECT_OK(omnirt_free_host(b, nullptr));
  EXPECT_OK(omnirt_stream_destroy(b, nullptr));
}

// Each simulated task waits 30 ms, so pending work is observable.
TEST_P(VendorBackend, EventsOrderStreamsAndMeasureTime) {
  env_.set("OMNIRT_SIM_TASK_DELAY_MS", "30");
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  constexpr size_t kSize = 1024;
  omnirt_stream* producer = nullptr;
  omnirt_stream* consumer = nullptr;
  omnirt_event* start = nullptr;
  omnirt_event* end = nullptr;
  void* d = nullptr;
  ASSERT_OK(omnirt_stream_create(b, 1, &producer));
  ASSERT_OK(omnirt_stream_create(b, 1, &consumer));
  ASSERT_OK(omnirt_event_create(b, 1, &start));
  ASSERT_OK(omnirt_event_create(b, 1, &end));
  ASSERT_OK(omnirt_malloc(b, 1, kSize, &d));

  ASSERT_OK(omnirt_event_record(b, start, producer));
  ASSERT_OK(omnirt_memset_async(b, d, 0x77, kSize, producer));
  ASSERT_OK(omnirt_event_record(b, end, producer));
  EXPECT_EQ(omnirt_stream_query(b, producer), OMNIRT_STATUS_NOT_READY);
  EXPECT_EQ(omnirt_event_query(b, end), OMNIRT_STATUS_NOT_READY);
  float ms = -1.0f;
  EXPECT_EQ(omnirt_event_elapsed_time(b, start, end, &ms), OMNIRT_STATUS_NOT_READY);

  // The consumer's copy must see the producer's memset.
  Bytes out(kSize);
  ASSERT_OK(omnirt_stream_wait_event(b, consumer, end));
  ASSERT_OK(omnirt_memcpy_async(b, out.data(), d, kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST, consumer));
  ASSERT_OK(omnirt_stream_synchronize(b, consumer));
  EXPECT_EQ(out, Bytes(kSize, 0x77));

  ASSERT_OK(omnirt_event_synchronize(b, end));
  EXPECT_EQ(omnirt_event_query(b, end), OMNIRT_STATUS_OK);
  ASSERT_OK(omnirt_event_elapsed_time(b, start, end, &ms));
  EXPECT_GE(ms, 25.0f) << "start and end are one 30 ms task apart";
  EXPECT_LT(ms, 5000.0f);

  ASSERT_OK(omnirt_free(b, 1, d));
  for (omnirt_event* e : {start, end}) ASSERT_OK(omnirt_event_destroy(b, e));
  for (omnirt_stream* s : {producer, consumer}) ASSERT_OK(omnirt_stream_destroy(b, s));
}

// stream_get_default names each device's default stream, the one NULL means
// there: sync copies wait for its work, events on it time that work, and
// stream_destroy refuses it. Each simulated task waits 30 ms.
TEST_P(VendorBackend, TheDefaultStreamOfEachDeviceHasAHandle) {
  env_.set("OMNIRT_SIM_TASK_DELAY_MS", "30");
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  constexpr size_t kSize = 1024;
  omnirt_stream* handles[2] = {nullptr, nullptr};
  for (int32_t device = 0; device < 2; ++device) {
    SCOPED_TRACE("device " + std::to_string(device));
    omnirt_stream* again = nullptr;
    ASSERT_OK(omnirt_stream_get_default(b, device, &handles[device]));
    ASSERT_OK(omnirt_stream_get_default(b, device, &again));
    EXPECT_EQ(handles[device], again);
    omnirt_stream* s = handles[device];
    omnirt_event* start = nullptr;
    omnirt_event* end = nullptr;
    void* d = nullptr;
    ASSERT_OK(omnirt_event_create(b, device, &start));
    ASSERT_OK(omnirt_event_create(b, device, &end));
    ASSERT_OK(omnirt_malloc(b, device, kSize, &d));
    ASSERT_OK(omnirt_event_record(b, start, s));
    ASSERT_OK(omnirt_memset_async(b, d, 0x42, kSize, s));
    ASSERT_OK(omnirt_event_record(b, end, s));
    EXPECT_EQ(omnirt_stream_query(b, s), OMNIRT_STATUS_NOT_READY);
    Bytes out(kSize);
    ASSERT_OK(omnirt_memcpy(b, out.data(), d, kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST));
    EXPECT_EQ(out, Bytes(kSize, 0x42)) << "the sync copy did not wait for the default stream";
    ASSERT_OK(omnirt_stream_synchronize(b, s));
    EXPECT_OK(omnirt_stream_query(b, s));
    float ms = -1.0f;
    ASSERT_OK(omnirt_event_elapsed_time(b, start, end, &ms));
    EXPECT_GE(ms, 25.0f) << "a 30 ms task lies between the events";
    EXPECT_EQ(omnirt_stream_destroy(b, s), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_THAT(last_message(), HasSubstr("default stream"));
    EXPECT_OK(omnirt_stream_synchronize(b, s));
    ASSERT_OK(omnirt_free(b, device, d));
    for (omnirt_event* e : {start, end}) ASSERT_OK(omnirt_event_destroy(b, e));
  }
  EXPECT_NE(handles[0], handles[1]);
  omnirt_stream* none = nullptr;
  EXPECT_EQ(omnirt_stream_get_default(b, 2, &none), OMNIRT_STATUS_OUT_OF_RANGE);
}

TEST_P(VendorBackend, AnEventNeverRecordedIsCompleteButHasNoTime) {
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  omnirt_event* fresh = nullptr;
  omnirt_event* recorded = nullptr;
  omnirt_stream* stream = nullptr;
  ASSERT_OK(omnirt_event_create(b, 0, &fresh));
  ASSERT_OK(omnirt_event_create(b, 0, &recorded));
  ASSERT_OK(omnirt_stream_create(b, 0, &stream));
  EXPECT_OK(omnirt_event_query(b, fresh));
  EXPECT_OK(omnirt_event_synchronize(b, fresh));
  EXPECT_OK(omnirt_stream_wait_event(b, stream, fresh));
  ASSERT_OK(omnirt_event_record(b, recorded, stream));
  ASSERT_OK(omnirt_stream_synchronize(b, stream));
  float ms = 0.0f;
  EXPECT_EQ(omnirt_event_elapsed_time(b, fresh, recorded, &ms), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("never recorded"));
  ASSERT_OK(omnirt_event_elapsed_time(b, recorded, recorded, &ms));
  EXPECT_EQ(ms, 0.0f);
  ASSERT_OK(omnirt_event_destroy(b, fresh));
  ASSERT_OK(omnirt_event_destroy(b, recorded));
  ASSERT_OK(omnirt_stream_destroy(b, stream));
}

TEST_P(VendorBackend, WhatTheVendorLacksIsNotSupported) {
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  EXPECT_EQ(capabilities(b).features & kUnmappedFeatures, 0u);

  omnirt_stream* stream = nullptr;
  ASSERT_OK(omnirt_stream_create(b, 0, &stream));
  void* ptr = nullptr;
  EXPECT_EQ(omnirt_malloc_async(b, 64, stream, &ptr), OMNIRT_STATUS_NOT_SUPPORTED);
  ASSERT_OK(omnirt_malloc(b, 0, 64, &ptr));
  EXPECT_EQ(omnirt_free_async(b, ptr, stream), OMNIRT_STATUS_NOT_SUPPORTED);
  ASSERT_OK(omnirt_free(b, 0, ptr));
  EXPECT_EQ(omnirt_stream_begin_capture(b, stream), OMNIRT_STATUS_NOT_SUPPORTED);
  omnirt_graph* graph = nullptr;
  EXPECT_EQ(omnirt_stream_end_capture(b, stream, &graph), OMNIRT_STATUS_NOT_SUPPORTED);

  ASSERT_OK(omnirt_stream_destroy(b, stream));
}

TEST_P(VendorBackend, CopiesBetweenDevices) {
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  constexpr size_t kSize = 2048;
  void* on0 = nullptr;
  void* on1 = nullptr;
  ASSERT_OK(omnirt_malloc(b, 0, kSize, &on0));
  ASSERT_OK(omnirt_malloc(b, 1, kSize, &on1));
  const Bytes in = pattern(kSize, 9);
  ASSERT_OK(omnirt_memcpy(b, on0, in.data(), kSize, OMNIRT_MEMCPY_HOST_TO_DEVICE));
  ASSERT_OK(omnirt_memcpy(b, on1, on0, kSize, OMNIRT_MEMCPY_DEVICE_TO_DEVICE));
  Bytes out(kSize);
  ASSERT_OK(omnirt_memcpy(b, out.data(), on1, kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(out, in);

  // Back again, on a stream of either device.
  for (int32_t device = 0; device < 2; ++device) {
    omnirt_stream* stream = nullptr;
    ASSERT_OK(omnirt_stream_create(b, device, &stream));
    ASSERT_OK(omnirt_memset(b, on0, device, kSize));
    ASSERT_OK(omnirt_memcpy_async(b, on0, on1, kSize, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, stream));
    ASSERT_OK(omnirt_stream_synchronize(b, stream));
    ASSERT_OK(omnirt_memcpy(b, out.data(), on0, kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST));
    EXPECT_EQ(out, in) << "on a stream of device " << device;
    ASSERT_OK(omnirt_stream_destroy(b, stream));
  }
  ASSERT_OK(omnirt_free(b, 0, on0));
  ASSERT_OK(omnirt_free(b, 1, on1));
}

TEST_P(VendorBackend, WithoutPeerAccessCopiesBetweenDevicesAreNotSupported) {
  env_.set("OMNIRT_SIM_NO_PEER", "1");
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  void* on0 = nullptr;
  void* on1 = nullptr;
  ASSERT_OK(omnirt_malloc(b, 0, 256, &on0));
  ASSERT_OK(omnirt_malloc(b, 1, 256, &on1));
  EXPECT_EQ(capabilities(b).features, kMappedFeatures & ~OMNIRT_FEATURE_PEER_COPY);
  EXPECT_EQ(omnirt_memcpy(b, on1, on0, 256, OMNIRT_MEMCPY_DEVICE_TO_DEVICE),
            OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(last_message(), HasSubstr("device 0 has no peer access to device 1"));
  ASSERT_OK(
      omnirt_memcpy(b, on1, static_cast<char*>(on1) + 128, 128, OMNIRT_MEMCPY_DEVICE_TO_DEVICE));
  ASSERT_OK(omnirt_free(b, 0, on0));
  ASSERT_OK(omnirt_free(b, 1, on1));
}

TEST_P(VendorBackend, OutOfMemoryKeepsTheVendorCodeAndText) {
  env_.set("OMNIRT_SIM_MEMORY_BYTES", std::to_string(1 << 20));
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  void* ptr = nullptr;
  ASSERT_EQ(omnirt_malloc(b, 1, 2 << 20, &ptr), OMNIRT_STATUS_OUT_OF_MEMORY);
  EXPECT_EQ(ptr, nullptr);
  EXPECT_EQ(last_native_code(), vendor().out_of_memory_code);
  EXPECT_STREQ(omnirt_last_error()->backend, vendor().backend);
  EXPECT_THAT(last_message(), HasSubstr("Malloc failed"));
  EXPECT_THAT(last_message(), HasSubstr("out of"));
  EXPECT_THAT(last_message(), HasSubstr("[simulated"));
  const omnirt_memory_stats s = stats(b, 1);
  EXPECT_EQ(s.alloc_count, 0u) << "a failed allocation is not counted";
}

TEST_P(VendorBackend, ALostDeviceIsDeviceLostFromThenOn) {
  env_.set("OMNIRT_SIM_DEVICE_LOST_AFTER", "2");
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  void* d = nullptr;
  ASSERT_OK(omnirt_malloc(b, 0, 256, &d));  // device call 1
  ASSERT_OK(omnirt_memset(b, d, 0, 256));   // device call 2
  Bytes out(256);
  EXPECT_EQ(omnirt_memcpy(b, out.data(), d, 256, OMNIRT_MEMCPY_DEVICE_TO_HOST),
            OMNIRT_STATUS_DEVICE_LOST);
  EXPECT_EQ(last_native_code(), vendor().device_lost_code);
  EXPECT_THAT(last_message(), HasSubstr("OMNIRT_SIM_DEVICE_LOST_AFTER"));
  EXPECT_EQ(omnirt_device_synchronize(b, 0), OMNIRT_STATUS_DEVICE_LOST);
  EXPECT_EQ(last_native_code(), vendor().device_lost_code);
}

TEST_P(VendorBackend, BadArgumentsAreNamed) {
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  void* d = nullptr;
  ASSERT_OK(omnirt_malloc(b, 0, 256, &d));
  Bytes buffer(512);

  EXPECT_EQ(omnirt_memcpy(b, d, buffer.data(), 512, OMNIRT_MEMCPY_HOST_TO_DEVICE),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("256 bytes left"));
  EXPECT_EQ(omnirt_memcpy(b, d, buffer.data(), 16, 9), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("kind 9"));
  EXPECT_EQ(omnirt_memset(b, static_cast<char*>(d) + 200, 0, 100), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(omnirt_free(b, 1, d), OMNIRT_STATUS_INVALID_ARGUMENT) << "d belongs to device 0";
  EXPECT_EQ(omnirt_free(b, 0, buffer.data()), OMNIRT_STATUS_INVALID_ARGUMENT);
  ASSERT_OK(omnirt_free(b, 0, d));
  EXPECT_EQ(omnirt_free(b, 0, d), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("freed twice"));
  EXPECT_EQ(omnirt_free_host(b, buffer.data()), OMNIRT_STATUS_INVALID_ARGUMENT);

  omnirt_stream* stream = nullptr;
  ASSERT_OK(omnirt_stream_create(b, 0, &stream));
  ASSERT_OK(omnirt_stream_destroy(b, stream));
  EXPECT_EQ(omnirt_stream_synchronize(b, stream), OMNIRT_STATUS_INVALID_ARGUMENT);
}

TEST_P(VendorBackend, MemoryStatsCountWhatCallersAskedFor) {
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  void* small = nullptr;
  void* large = nullptr;
  ASSERT_OK(omnirt_malloc(b, 0, 1000, &small));
  ASSERT_OK(omnirt_malloc(b, 0, 3000, &large));
  omnirt_memory_stats s = stats(b, 0);
  EXPECT_EQ(s.known, uint32_t{OMNIRT_STAT_ALLOCATED_BYTES | OMNIRT_STAT_PEAK_BYTES |
                              OMNIRT_STAT_ALLOC_COUNT | OMNIRT_STAT_FREE_COUNT})
      << "reserved_bytes is the vendor allocator's secret";
  EXPECT_EQ(s.allocated_bytes, 4000u);
  EXPECT_EQ(s.peak_bytes, 4000u);
  EXPECT_EQ(s.alloc_count, 2u);
  EXPECT_EQ(s.free_count, 0u);

  ASSERT_OK(omnirt_free(b, 0, large));
  s = stats(b, 0);
  EXPECT_EQ(s.allocated_bytes, 1000u);
  EXPECT_EQ(s.peak_bytes, 4000u);
  EXPECT_EQ(s.free_count, 1u);

  ASSERT_OK(omnirt_reset_memory_stats(b, 0));
  s = stats(b, 0);
  EXPECT_EQ(s.allocated_bytes, 1000u);
  EXPECT_EQ(s.peak_bytes, 1000u);
  EXPECT_EQ(s.alloc_count, 0u);
  EXPECT_EQ(s.free_count, 0u);
  EXPECT_EQ(stats(b, 1).allocated_bytes, 0u);
  ASSERT_OK(omnirt_free(b, 0, small));
  EXPECT_EQ(stats(b, 0).allocated_bytes, 0u);
}

TEST_P(VendorBackend, AnOlderSdkClearsTheFeatureItLacks) {
  auto host = make_host(vendor().old_sim);
  omnirt_backend* b = backend(*host);
  EXPECT_EQ(capabilities(b).features, kMappedFeatures)
      << "before the runtime is loaded, a complete SDK is assumed";
  int32_t count = 0;
  ASSERT_OK(omnirt_get_device_count(b, &count));
  EXPECT_EQ(capabilities(b).features, kMappedFeatures & ~OMNIRT_FEATURE_ASYNC_COPY);

  void* d = nullptr;
  ASSERT_OK(omnirt_malloc(b, 0, 64, &d));
  omnirt_stream* stream = nullptr;
  ASSERT_OK(omnirt_stream_create(b, 0, &stream));
  Bytes in = pattern(64, 3);
  EXPECT_EQ(omnirt_memset_async(b, d, 0, 64, stream), OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(last_message(), HasSubstr(std::string("lacks ") + vendor().old_sdk_lacks));
  EXPECT_THAT(last_message(), HasSubstr(vendor().soname));
  EXPECT_EQ(omnirt_memcpy_async(b, d, in.data(), 64, OMNIRT_MEMCPY_HOST_TO_DEVICE, stream),
            OMNIRT_STATUS_NOT_SUPPORTED);
  // Everything else still works.
  ASSERT_OK(omnirt_memcpy(b, d, in.data(), 64, OMNIRT_MEMCPY_HOST_TO_DEVICE));
  Bytes out(64);
  ASSERT_OK(omnirt_memcpy(b, out.data(), d, 64, OMNIRT_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(out, in);
  ASSERT_OK(omnirt_stream_destroy(b, stream));
  ASSERT_OK(omnirt_free(b, 0, d));
}

// The host asked is_available before the failure; the reason reaches callers
// through the calls that need the runtime (vendor_plugin_test.cpp checks
// is_available itself afterwards).
TEST_P(VendorBackend, AFailedInitializationIsReportedWithTheVendorsText) {
  env_.set("OMNIRT_SIM_FAIL_INIT", "1");
  auto host = make_host();
  omnirt_backend* b = backend(*host);  // the library exists: available until tried
  int32_t count = -1;
  ASSERT_OK(omnirt_get_device_count(b, &count));
  EXPECT_EQ(count, 0);
  void* pinned = nullptr;
  EXPECT_EQ(omnirt_malloc_host(b, 64, &pinned), OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_THAT(last_message(), HasSubstr(std::string(vendor().init_call) + " failed"));
  EXPECT_THAT(last_message(), HasSubstr("OMNIRT_SIM_FAIL_INIT"));
}

TEST_P(VendorBackend, UnknownOptionsAreRejectedByName) {
  Host host(vendor(), {{"library", vendor().sim}, {"libary", "typo"}});
  omnirt_backend* b = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host.get(), vendor().backend, &b),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("unknown option 'libary'"));
}

// PLUGIN_RULES 10: destroy gives back what callers did not.
TEST_P(VendorBackend, DestroyReleasesWhatCallersLeft) {
  void* sim = dlopen(vendor().sim, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(sim, nullptr) << dlerror();
  const auto outstanding = reinterpret_cast<int (*)()>(dlsym(sim, "omnirt_sim_outstanding"));
  ASSERT_NE(outstanding, nullptr);
  {
    auto host = make_host();
    omnirt_backend* b = backend(*host);
    void* ptr = nullptr;
    omnirt_stream* stream = nullptr;
    omnirt_event* event = nullptr;
    ASSERT_OK(omnirt_malloc(b, 1, 128, &ptr));
    ASSERT_OK(omnirt_malloc_host(b, 128, &ptr));
    ASSERT_OK(omnirt_stream_create(b, 1, &stream));
    ASSERT_OK(omnirt_event_create(b, 1, &event));
    ASSERT_OK(omnirt_event_record(b, event, stream));
    EXPECT_GE(outstanding(), 4);
  }
  EXPECT_EQ(outstanding(), 0);
  dlclose(sim);
}

TEST_P(VendorBackend, ManyThreadsOnBothDevices) {
  auto host = make_host();
  omnirt_backend* b = backend(*host);
  constexpr int kThreads = 4;
  constexpr int kRounds = 50;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const int32_t device = t % 2;
      for (int round = 0; round < kRounds; ++round) {
        const Bytes in = pattern(512 + round, t * 100 + round);
        Bytes out(in.size());
        void* d = nullptr;
        if (omnirt_malloc(b, device, in.size(), &d) != OMNIRT_STATUS_OK ||
            omnirt_memcpy(b, d, in.data(), in.size(), OMNIRT_MEMCPY_HOST_TO_DEVICE) !=
                OMNIRT_STATUS_OK ||
            omnirt_memcpy(b, out.data(), d, out.size(), OMNIRT_MEMCPY_DEVICE_TO_HOST) !=
                OMNIRT_STATUS_OK ||
            omnirt_free(b, device, d) != OMNIRT_STATUS_OK || out != in) {
          ++failures[t];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(std::accumulate(failures.begin(), failures.end(), 0), 0);
  for (int32_t device = 0; device < 2; ++device) {
    const omnirt_memory_stats s = stats(b, device);
    EXPECT_EQ(s.allocated_bytes, 0u);
    EXPECT_EQ(s.alloc_count, uint64_t{kThreads / 2 * kRounds});
    EXPECT_EQ(s.free_count, s.alloc_count);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, VendorBackend, ::testing::Values(&ascend(), &cambricon()),
                         backend_name);

}  // namespace
}  // namespace omnirt::vendor_test
