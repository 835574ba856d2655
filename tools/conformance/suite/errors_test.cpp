// Error paths (rule 12: errors are specific; rule 8: status codes, never a
// crash): NULL pointers, bad device indices and copy kinds are refused with a
// message, exhaustion is OUT_OF_MEMORY, and a double free comes back as a
// status rather than taking the process down.
#include <cstdint>

#include "kit.hpp"
#include "probe.hpp"
#include "resources.hpp"

namespace omnirt::conformance {
namespace {

class Errors : public KitTest {};

KIT_TEST(Errors, NullPointersAreInvalidArgument, 12) {
  omnirt_backend* b = backend();
  KIT_EXPECT_REJECTED(omnirt_malloc(b, 0, 64, nullptr));
  KIT_EXPECT_REJECTED(omnirt_get_device_count(b, nullptr));
  KIT_EXPECT_REJECTED(omnirt_get_capabilities(b, nullptr));
  KIT_EXPECT_REJECTED(omnirt_get_device_info(b, 0, nullptr));
  DeviceMemory d(b);
  KIT_ASSERT_OK(omnirt_malloc(b, 0, 64, d.out()));
  unsigned char host[64] = {};
  KIT_EXPECT_REJECTED(omnirt_memcpy(b, nullptr, host, 64, OMNIRT_MEMCPY_HOST_TO_DEVICE));
  KIT_EXPECT_REJECTED(omnirt_memcpy(b, host, nullptr, 64, OMNIRT_MEMCPY_DEVICE_TO_HOST));
  KIT_EXPECT_REJECTED(omnirt_memset(b, nullptr, 0, 64));
  if (has(OMNIRT_FEATURE_STREAMS)) {
    KIT_EXPECT_REJECTED(omnirt_stream_create(b, 0, nullptr));
  }
  if (has(OMNIRT_FEATURE_EVENTS)) {
    KIT_EXPECT_REJECTED(omnirt_event_create(b, 0, nullptr));
  }
  if (has(OMNIRT_FEATURE_HOST_ALLOC)) {
    KIT_EXPECT_REJECTED(omnirt_malloc_host(b, 64, nullptr));
  }
  if (has(OMNIRT_FEATURE_MEMORY_STATS)) {
    KIT_EXPECT_REJECTED(omnirt_get_memory_stats(b, 0, nullptr));
  }
  if (has(OMNIRT_FEATURE_MEM_INFO)) {
    size_t total = 0;
    KIT_EXPECT_REJECTED(omnirt_mem_get_info(b, 0, nullptr, &total));
  }
}

KIT_TEST(Errors, BadDeviceIndicesAreRefused, 12) {
  omnirt_backend* b = backend();
  for (const int32_t device : {kit().device_count, int32_t{-1}}) {
    SCOPED_TRACE("device " + std::to_string(device));
    omnirt_device_info info{};
    info.struct_size = sizeof info;
    KIT_EXPECT_REJECTED(omnirt_get_device_info(b, device, &info));
    DeviceMemory d(b, device);
    KIT_EXPECT_REJECTED(omnirt_malloc(b, device, 64, d.out()));
    KIT_EXPECT_REJECTED(omnirt_device_synchronize(b, device));
    if (has(OMNIRT_FEATURE_STREAMS)) {
      Stream s(b);
      KIT_EXPECT_REJECTED(omnirt_stream_create(b, device, s.out()));
    }
    if (has(OMNIRT_FEATURE_EVENTS)) {
      Event e(b);
      KIT_EXPECT_REJECTED(omnirt_event_create(b, device, e.out()));
    }
    if (has(OMNIRT_FEATURE_MEM_INFO)) {
      size_t free_bytes = 0, total = 0;
      KIT_EXPECT_REJECTED(omnirt_mem_get_info(b, device, &free_bytes, &total));
    }
    if (has(OMNIRT_FEATURE_MEMORY_STATS)) {
      omnirt_memory_stats stats{};
      stats.struct_size = sizeof stats;
      KIT_EXPECT_REJECTED(omnirt_get_memory_stats(b, device, &stats));
    }
  }
}

KIT_TEST(Errors, UnknownCopyKindIsInvalidArgument, 12) {
  DeviceMemory d(backend());
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, 64, d.out()));
  unsigned char host[64] = {};
  for (const int32_t kind : {-1, 4, 99}) {
    KIT_EXPECT_STATUS(omnirt_memcpy(backend(), d.get(), host, 64, kind),
                      OMNIRT_STATUS_INVALID_ARGUMENT)
        << "memcpy kind " << kind;
  }
}

KIT_TEST(Errors, ExhaustionIsOutOfMemory, 12) {
  DeviceMemory d(backend());
  KIT_EXPECT_STATUS(omnirt_malloc(backend(), 0, size_t{1} << 62, d.out()),
                    OMNIRT_STATUS_OUT_OF_MEMORY)
      << "4 EiB cannot be allocated anywhere";
  EXPECT_EQ(d.get(), nullptr);
}

KIT_TEST(Errors, DoubleFreeIsAStatusNotACrash, 8) {
  const ProbeResult p = run_probe("double_free");
  ASSERT_EQ(p.problem(), "") << "freeing the same pointer twice: " << p.problem();
  ASSERT_EQ(p["malloc_status"], "0");
  EXPECT_EQ(p["first_free_status"], "0");
  const std::string second = p["second_free_status"];
  EXPECT_TRUE(second == std::to_string(OMNIRT_STATUS_OK) ||
              second == std::to_string(OMNIRT_STATUS_INVALID_ARGUMENT))
      << "the second free returned status " << second << ", expected INVALID_ARGUMENT (or OK "
      << "where a double free cannot be detected)";
}

}  // namespace
}  // namespace omnirt::conformance
