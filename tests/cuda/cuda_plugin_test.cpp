// The cuda plugin through its vtable: loading, capabilities and the honest
// "unavailable" answer run everywhere (CI has no GPU); the device tests skip
// with a reason where no CUDA device is present and run on a GPU machine.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "cuda_plugin.h"

namespace omnirt::cuda_test {
namespace {

TEST(CudaPluginTest, LoadsNegotiatesAndCreatesWithoutTouchingCuda) {
  CudaPlugin plugin;
  ASSERT_EQ(plugin.create_status(), OMNIRT_STATUS_OK);
  EXPECT_STREQ(plugin.vt()->name, "cuda");
  EXPECT_EQ(plugin.vt()->struct_size, sizeof(omnirt_backend_vtable));
  // Rule 4: nothing heavy at load.
  EXPECT_EQ(dlopen("libcudart.so." OMNIRT_CUDART_MAJOR_TEXT, RTLD_LAZY | RTLD_NOLOAD), nullptr);
  EXPECT_EQ(dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD), nullptr);
}

TEST(CudaPluginTest, RejectsAnUnknownAllocatorOption) {
  CudaPlugin plugin(CudaPlugin::Options{{"allocator", "bogus"}});
  EXPECT_EQ(plugin.create_status(), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("bogus"), std::string::npos) << last_error();
}

TEST(CudaPluginTest, CapabilitiesAreHonest) {
  CudaPlugin plugin;
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(plugin.vt()->get_capabilities(plugin.state(), &caps), OMNIRT_STATUS_OK);
  EXPECT_EQ(caps.dl_device_type, kDLCUDA);
  EXPECT_STREQ(caps.vendor, "nvidia");
  EXPECT_TRUE(caps.features & OMNIRT_FEATURE_NAMED_OPS);
  EXPECT_TRUE(caps.features & OMNIRT_FEATURE_STREAM_ORDERED_ALLOC);
  // MODULES exactly when an engine (a module format) is there.
  EXPECT_EQ(bool(caps.features & OMNIRT_FEATURE_MODULES), caps.num_module_formats > 0);
  const omnirt_op_decl* ops = nullptr;
  size_t count = 0;
  ASSERT_EQ(plugin.vt()->list_ops(plugin.state(), &ops, &count), OMNIRT_STATUS_OK);
  ASSERT_EQ(count, 4u);
  EXPECT_STREQ(ops[0].name, "rms_norm");
}

// torchscript and aoti are each either loadable or listed with the reason
// (without a CUDA libtorch at build time, as on CI: both, with the reason).
TEST(CudaPluginTest, ModuleFormatsAreLoadableOrExplained) {
  CudaPlugin plugin;
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(plugin.vt()->get_capabilities(plugin.state(), &caps), OMNIRT_STATUS_OK);
  for (const std::string format : {"torchscript", "aoti"}) {
    SCOPED_TRACE(format);
    int listed = 0;
    for (size_t i = 0; i < caps.num_module_formats; ++i) listed += format == caps.module_formats[i];
    for (size_t i = 0; i < caps.num_unavailable_module_formats; ++i) {
      const omnirt_module_format_unavailable& u = caps.unavailable_module_formats[i];
      if (format != u.format) continue;
      ++listed;
      EXPECT_GT(std::strlen(u.reason), 10u) << u.reason;
      // module_load says the same, naming the format, before loading anything.
      omnirt_module_source source{sizeof source, u.format, nullptr, 0, "model.file"};
      omnirt_executable* exe = nullptr;
      EXPECT_EQ(plugin.vt()->module_load(plugin.state(), 0, &source, OMNIRT_TIER_EAGER, nullptr, &exe),
                OMNIRT_STATUS_NOT_SUPPORTED);
      EXPECT_NE(last_error().find(std::string("module format '") + u.format + "': " + u.reason),
                std::string::npos)
          << last_error();
    }
    EXPECT_EQ(listed, 1) << "in exactly one of module_formats and unavailable_module_formats";
  }
}

// NCCL needs no GPU to be found and loaded: the binding's symbol list meets
// the real library wherever one is installed.
TEST(CudaPluginTest, CollectivesAreThereExactlyWhenNcclIsFound) {
  CudaPlugin plugin;
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(plugin.vt()->get_capabilities(plugin.state(), &caps), OMNIRT_STATUS_OK);
  char library[512] = "";
  const omnirt_status status = plugin.vt()->collectives_library(plugin.state(), library, sizeof library);
  if ((caps.features & OMNIRT_FEATURE_COLLECTIVES) != 0) {
    ASSERT_EQ(status, OMNIRT_STATUS_OK) << last_error();
    EXPECT_EQ(std::string(library).rfind("NCCL 2.", 0), 0u) << library;
    std::printf("collectives: %s\n", library);
  } else {
    EXPECT_EQ(status, OMNIRT_STATUS_UNAVAILABLE);
    EXPECT_NE(last_error().find("libnccl.so.2"), std::string::npos) << last_error();
  }
  CudaPlugin missing(CudaPlugin::Options{{"nccl_library", "/nonexistent/libnccl.so.2"}});
  ASSERT_EQ(missing.vt()->get_capabilities(missing.state(), &caps), OMNIRT_STATUS_OK);
  EXPECT_EQ(caps.features & OMNIRT_FEATURE_COLLECTIVES, 0u);
  EXPECT_EQ(missing.vt()->collectives_library(missing.state(), library, sizeof library), OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_NE(last_error().find("nccl_library=/nonexistent/libnccl.so.2 is not a file"), std::string::npos)
      << last_error();
}

TEST(CudaPluginTest, ExplainsWhyItIsUnavailable) {
  CudaPlugin plugin;
  std::string reason;
  if (plugin.available(&reason) && plugin.device_count() > 0) {
    GTEST_SKIP() << "a CUDA device is present: nothing is unavailable here";
  }
  if (!plugin.available(&reason)) {
    EXPECT_TRUE(reason.find("libcuda.so.1") != std::string::npos ||
                reason.find("libcudart") != std::string::npos)
        << "the first answer names the missing file: " << reason;
  }
  // First real use: the runtime is loaded (if there) and fails, without a crash.
  EXPECT_EQ(plugin.device_count(), 0);
  void* ptr = nullptr;
  EXPECT_EQ(plugin.vt()->malloc_device(plugin.state(), 0, 256, &ptr), OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_NE(last_error().find("cuda"), std::string::npos) << last_error();
  EXPECT_FALSE(plugin.available(&reason));
  EXPECT_FALSE(reason.empty());
  std::printf("cuda unavailable here: %s\n", reason.c_str());
  omnirt_module_source source{sizeof source, "onnx", nullptr, 0, nullptr};
  omnirt_executable* exe = nullptr;
  EXPECT_EQ(plugin.vt()->module_load(plugin.state(), 0, &source, OMNIRT_TIER_EAGER, nullptr, &exe),
            OMNIRT_STATUS_NOT_SUPPORTED);
}

// Device tests: every allocator, each skipped where CUDA cannot run.
class CudaDeviceTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    plugin_ = std::make_unique<CudaPlugin>(CudaPlugin::Options{{"allocator", GetParam()}});
    std::string reason;
    if (!plugin_->available(&reason) || plugin_->device_count() == 0) {
      plugin_->available(&reason);
      GTEST_SKIP() << "no CUDA device: " << reason;
    }
  }
  const omnirt_backend_vtable& vt() const { return *plugin_->vt(); }
  omnirt_backend_state* st() const { return plugin_->state(); }

  std::vector<uint8_t> read(const void* device_ptr, size_t size) {
    std::vector<uint8_t> host(size);
    EXPECT_EQ(vt().memcpy_sync(st(), host.data(), device_ptr, size, OMNIRT_MEMCPY_DEVICE_TO_HOST),
              OMNIRT_STATUS_OK) << last_error();
    return host;
  }

  std::unique_ptr<CudaPlugin> plugin_;
};

TEST_P(CudaDeviceTest, DescribesTheDevice) {
  omnirt_device_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(vt().get_device_info(st(), 0, &info), OMNIRT_STATUS_OK) << last_error();
  EXPECT_GT(std::strlen(info.name), 0u);
  EXPECT_EQ(std::string(info.arch).rfind("sm_", 0), 0u) << info.arch;
  EXPECT_GT(info.total_memory_bytes, 0u);
  EXPECT_GT(info.compute_units, 0);
  EXPECT_EQ(vt().get_device_info(st(), 99, &info), OMNIRT_STATUS_OUT_OF_RANGE);
}

TEST_P(CudaDeviceTest, CopiesAndSetsMemoryEveryWay) {
  constexpr size_t kSize = 1 << 20;
  void *a = nullptr, *b = nullptr, *pinned = nullptr;
  ASSERT_EQ(vt().malloc_device(st(), 0, kSize, &a), OMNIRT_STATUS_OK) << last_error();
  ASSERT_EQ(vt().malloc_device(st(), 0, kSize, &b), OMNIRT_STATUS_OK) << last_error();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 256, 0u);
  ASSERT_EQ(vt().malloc_host(st(), kSize, &pinned), OMNIRT_STATUS_OK) << last_error();
  std::vector<uint8_t> pattern(kSize);
  std::iota(pattern.begin(), pattern.end(), uint8_t{7});
  std::memcpy(pinned, pattern.data(), kSize);

  ASSERT_EQ(vt().memcpy_sync(st(), a, pinned, kSize, OMNIRT_MEMCPY_HOST_TO_DEVICE), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().memcpy_sync(st(), b, a, kSize, OMNIRT_MEMCPY_DEVICE_TO_DEVICE), OMNIRT_STATUS_OK);
  EXPECT_EQ(read(b, kSize), pattern);
  ASSERT_EQ(vt().memset_sync(st(), b, 0xAB, kSize / 2), OMNIRT_STATUS_OK);
  std::vector<uint8_t> expected = pattern;
  std::fill(expected.begin(), expected.begin() + kSize / 2, 0xAB);
  EXPECT_EQ(read(b, kSize), expected);

  omnirt_stream* stream = nullptr;
  ASSERT_EQ(vt().stream_create(st(), 0, &stream), OMNIRT_STATUS_OK);
  void* c = nullptr;
  ASSERT_EQ(vt().malloc_async(st(), kSize, stream, &c), OMNIRT_STATUS_OK) << last_error();
  ASSERT_EQ(vt().memset_async(st(), c, 0x11, kSize, stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().memcpy_async(st(), c, pinned, 64, OMNIRT_MEMCPY_HOST_TO_DEVICE, stream), OMNIRT_STATUS_OK);
  std::vector<uint8_t> back(kSize);
  ASSERT_EQ(vt().memcpy_async(st(), back.data(), c, kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST, stream),
            OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().stream_synchronize(st(), stream), OMNIRT_STATUS_OK);
  EXPECT_TRUE(std::equal(back.begin(), back.begin() + 64, pattern.begin()));
  EXPECT_TRUE(std::all_of(back.begin() + 64, back.end(), [](uint8_t v) { return v == 0x11; }));
  ASSERT_EQ(vt().free_async(st(), c, stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().stream_destroy(st(), stream), OMNIRT_STATUS_OK);

  EXPECT_EQ(vt().memcpy_sync(st(), a, b, 16, 42), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(vt().free_device(st(), 0, a), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().free_device(st(), 0, b), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().free_host(st(), pinned), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().device_synchronize(st(), 0), OMNIRT_STATUS_OK);
}

TEST_P(CudaDeviceTest, ReportsMemoryInfoAndStatsInBytes) {
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(vt().mem_get_info(st(), 0, &free_bytes, &total_bytes), OMNIRT_STATUS_OK);
  EXPECT_GT(total_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);
  omnirt_memory_stats stats{};
  stats.struct_size = sizeof stats;
  ASSERT_EQ(vt().memory_stats(st(), 0, &stats), OMNIRT_STATUS_OK);
  const uint64_t before = stats.allocated_bytes;
  void* p = nullptr;
  ASSERT_EQ(vt().malloc_device(st(), 0, 1000, &p), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().memory_stats(st(), 0, &stats), OMNIRT_STATUS_OK);
  EXPECT_TRUE(stats.known & OMNIRT_STAT_ALLOCATED_BYTES);
  EXPECT_EQ(stats.allocated_bytes, before + 1000);
  EXPECT_GE(stats.peak_bytes, stats.allocated_bytes);
  if (stats.known & OMNIRT_STAT_RESERVED_BYTES) {
    EXPECT_GE(stats.reserved_bytes, 1000u);
  }
  ASSERT_EQ(vt().free_device(st(), 0, p), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().reset_memory_stats(st(), 0), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().memory_stats(st(), 0, &stats), OMNIRT_STATUS_OK);
  EXPECT_EQ(stats.alloc_count, 0u);
  EXPECT_EQ(stats.peak_bytes, stats.allocated_bytes);
}

TEST_P(CudaDeviceTest, RunsOutOfMemoryHonestly) {
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(vt().mem_get_info(st(), 0, &free_bytes, &total_bytes), OMNIRT_STATUS_OK);
  void* p = nullptr;
  EXPECT_EQ(vt().malloc_device(st(), 0, total_bytes * 2, &p), OMNIRT_STATUS_OUT_OF_MEMORY);
  if (GetParam() == std::string("async")) {
    // Refused up front: the pool would first take all of the device's free
    // memory, failing other processes' CUDA calls meanwhile.
    EXPECT_NE(last_error().find("the device has " + std::to_string(total_bytes)), std::string::npos)
        << last_error();
  }
  // The failure is not sticky: the device still allocates.
  ASSERT_EQ(vt().malloc_device(st(), 0, 4096, &p), OMNIRT_STATUS_OK) << last_error();
  EXPECT_EQ(vt().free_device(st(), 0, p), OMNIRT_STATUS_OK);
}

TEST_P(CudaDeviceTest, TimesEventsAndOrdersStreams) {
  omnirt_stream *s1 = nullptr, *s2 = nullptr;
  omnirt_event *start = nullptr, *end = nullptr;
  ASSERT_EQ(vt().stream_create(st(), 0, &s1), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().stream_create(st(), 0, &s2), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().event_create(st(), 0, &start), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().event_create(st(), 0, &end), OMNIRT_STATUS_OK);
  float ms = -1;
  EXPECT_EQ(vt().event_elapsed_time(st(), start, end, &ms), OMNIRT_STATUS_INVALID_ARGUMENT)
      << "never recorded";
  EXPECT_EQ(vt().event_query(st(), start), OMNIRT_STATUS_OK) << "never recorded is complete";

  constexpr size_t kSize = 64 << 20;
  void* buffer = nullptr;
  ASSERT_EQ(vt().malloc_async(st(), kSize, s1, &buffer), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().event_record(st(), start, s1), OMNIRT_STATUS_OK);
  for (int i = 0; i < 20; ++i) ASSERT_EQ(vt().memset_async(st(), buffer, i, kSize, s1), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().event_record(st(), end, s1), OMNIRT_STATUS_OK);
  // s2 waits for s1's memsets, then reads the last value.
  ASSERT_EQ(vt().stream_wait_event(st(), s2, end), OMNIRT_STATUS_OK);
  uint8_t last = 0;
  ASSERT_EQ(vt().memcpy_async(st(), &last, buffer, 1, OMNIRT_MEMCPY_DEVICE_TO_HOST, s2), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().stream_synchronize(st(), s2), OMNIRT_STATUS_OK);
  EXPECT_EQ(last, 19);
  ASSERT_EQ(vt().event_synchronize(st(), end), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().event_query(st(), end), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().stream_query(st(), s1), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().event_elapsed_time(st(), start, end, &ms), OMNIRT_STATUS_OK);
  EXPECT_GT(ms, 0.f);
  ASSERT_EQ(vt().free_async(st(), buffer, s1), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().event_destroy(st(), start), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().event_destroy(st(), end), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().stream_destroy(st(), s1), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().stream_destroy(st(), s2), OMNIRT_STATUS_OK);
}

TEST_P(CudaDeviceTest, CapturesAndReplaysAGraph) {
  omnirt_stream* stream = nullptr;
  ASSERT_EQ(vt().stream_create(st(), 0, &stream), OMNIRT_STATUS_OK);
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(vt().malloc_device(st(), 0, 4096, &a), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().malloc_device(st(), 0, 4096, &b), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().memset_sync(st(), b, 0, 4096), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().stream_begin_capture(st(), stream), OMNIRT_STATUS_OK) << last_error();
  ASSERT_EQ(vt().memset_async(st(), a, 0x5A, 4096, stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().memcpy_async(st(), b, a, 4096, OMNIRT_MEMCPY_DEVICE_TO_DEVICE, stream), OMNIRT_STATUS_OK);
  omnirt_graph* graph = nullptr;
  ASSERT_EQ(vt().stream_end_capture(st(), stream, &graph), OMNIRT_STATUS_OK) << last_error();
  EXPECT_EQ(read(b, 4096), std::vector<uint8_t>(4096, 0)) << "captured work does not run";
  ASSERT_EQ(vt().graph_launch(st(), graph, stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().stream_synchronize(st(), stream), OMNIRT_STATUS_OK);
  EXPECT_EQ(read(b, 4096), std::vector<uint8_t>(4096, 0x5A));
  EXPECT_EQ(vt().graph_destroy(st(), graph), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().free_device(st(), 0, a), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().free_device(st(), 0, b), OMNIRT_STATUS_OK);
  EXPECT_EQ(vt().stream_destroy(st(), stream), OMNIRT_STATUS_OK);
}

// Each call makes its device current (DeviceGuard), whatever the thread had.
TEST_P(CudaDeviceTest, WorksOnEveryDevice) {
  if (plugin_->device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  for (int32_t d = 0; d < plugin_->device_count(); ++d) {
    void* p = nullptr;
    ASSERT_EQ(vt().malloc_device(st(), d, 1 << 20, &p), OMNIRT_STATUS_OK) << last_error();
    ASSERT_EQ(vt().memset_sync(st(), p, d, 1 << 20), OMNIRT_STATUS_OK);
    EXPECT_EQ(read(p, 1)[0], d);
    EXPECT_EQ(vt().free_device(st(), d, p), OMNIRT_STATUS_OK);
  }
}

using CudaCachingDeviceTest = CudaDeviceTest;

TEST_P(CudaCachingDeviceTest, ReusesBlocksOfOneSizeClass) {
  void* first = nullptr;
  ASSERT_EQ(vt().malloc_device(st(), 0, 1 << 20, &first), OMNIRT_STATUS_OK);
  ASSERT_EQ(vt().free_device(st(), 0, first), OMNIRT_STATUS_OK);
  for (int i = 0; i < 100; ++i) {
    void* p = nullptr;
    ASSERT_EQ(vt().malloc_device(st(), 0, (1 << 20) - i, &p), OMNIRT_STATUS_OK);
    EXPECT_EQ(p, first) << "same size class, same stream: the cached block";
    ASSERT_EQ(vt().free_device(st(), 0, p), OMNIRT_STATUS_OK);
  }
  omnirt_memory_stats stats{};
  stats.struct_size = sizeof stats;
  ASSERT_EQ(vt().memory_stats(st(), 0, &stats), OMNIRT_STATUS_OK);
  EXPECT_EQ(stats.reserved_bytes, uint64_t{1} << 20);
  EXPECT_EQ(stats.allocated_bytes, 0u);
}

auto allocator_name = [](const auto& param_info) { return std::string(param_info.param); };
INSTANTIATE_TEST_SUITE_P(Allocators, CudaDeviceTest, ::testing::Values("caching", "async", "plain"),
                         allocator_name);
INSTANTIATE_TEST_SUITE_P(Allocators, CudaCachingDeviceTest, ::testing::Values("caching"),
                         allocator_name);

}  // namespace
}  // namespace omnirt::cuda_test
