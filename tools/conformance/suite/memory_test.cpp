// Memory: allocation, copies of every kind and memset round-trip with the data
// checked through host staging buffers, alignment, zero sizes and NULL frees
// (the slot contract), and the optional pinned, stream-ordered and info calls
// where advertised (rule 7).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kit.hpp"
#include "resources.hpp"

namespace omnirt::conformance {
namespace {

class Memory : public KitTest {};

// Odd sizes catch copies that round or assume whole words.
constexpr size_t kSizes[] = {1, 255, 4096 + 3, size_t{1} << 20};

KIT_TEST(Memory, RoundTripsThroughEachDevice, kContract) {
  for (int32_t device = 0; device < kit().device_count; ++device) {
    for (size_t size : kSizes) {
      SCOPED_TRACE("device " + std::to_string(device) + ", " + std::to_string(size) + " bytes");
      const std::vector<unsigned char> in = pattern(size, 1);
      std::vector<unsigned char> out(size, 0);
      DeviceMemory a(backend(), device), b(backend(), device);
      KIT_ASSERT_OK(omnirt_malloc(backend(), device, size, a.out()));
      KIT_ASSERT_OK(omnirt_malloc(backend(), device, size, b.out()));
      ASSERT_NE(a.get(), nullptr);
      KIT_ASSERT_OK(omnirt_memcpy(backend(), a.get(), in.data(), size, OMNIRT_MEMCPY_HOST_TO_DEVICE));
      KIT_ASSERT_OK(omnirt_memcpy(backend(), b.get(), a.get(), size, OMNIRT_MEMCPY_DEVICE_TO_DEVICE));
      KIT_ASSERT_OK(omnirt_memcpy(backend(), out.data(), b.get(), size, OMNIRT_MEMCPY_DEVICE_TO_HOST));
      KIT_EXPECT_BYTES("host -> device -> device -> host", out.data(), in.data(), size);
    }
  }
}

KIT_TEST(Memory, CopiesHostToHost, kContract) {
  const std::vector<unsigned char> in = pattern(4099, 2);
  std::vector<unsigned char> out(in.size(), 0);
  KIT_ASSERT_OK(omnirt_memcpy(backend(), out.data(), in.data(), in.size(), OMNIRT_MEMCPY_HOST_TO_HOST));
  KIT_EXPECT_BYTES("host -> host", out.data(), in.data(), in.size());
}

KIT_TEST(Memory, SetWritesTheLowByteOfValueExactlyInRange, kContract) {
  constexpr size_t kSize = 4096, kOffset = 16, kLength = 1000;
  const std::vector<unsigned char> in = pattern(kSize, 3);
  std::vector<unsigned char> out(kSize, 0);
  DeviceMemory d(backend());
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, kSize, d.out()));
  KIT_ASSERT_OK(omnirt_memcpy(backend(), d.get(), in.data(), kSize, OMNIRT_MEMCPY_HOST_TO_DEVICE));
  KIT_ASSERT_OK(omnirt_memset(backend(), d.bytes() + kOffset, 0x1C3, kLength));
  KIT_ASSERT_OK(omnirt_memcpy(backend(), out.data(), d.get(), kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST));
  KIT_EXPECT_FILLED("inside the range set", out.data() + kOffset, 0xC3, kLength);
  KIT_EXPECT_BYTES("before the range set", out.data(), in.data(), kOffset);
  KIT_EXPECT_BYTES("after the range set", out.data() + kOffset + kLength,
                   in.data() + kOffset + kLength, kSize - kOffset - kLength);
}

KIT_TEST(Memory, AllocationsAreAlignedTo256Bytes, kContract) {
  for (size_t size : kSizes) {
    DeviceMemory d(backend());
    KIT_ASSERT_OK(omnirt_malloc(backend(), 0, size, d.out()));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(d.get()) % 256, 0u) << size << " bytes at " << d.get();
  }
}

KIT_TEST(Memory, ZeroSizesAndNullFreesAreNoOps, kContract) {
  void* p = reinterpret_cast<void*>(uintptr_t{1});
  KIT_EXPECT_OK(omnirt_malloc(backend(), 0, 0, &p));
  EXPECT_EQ(p, nullptr) << "malloc of 0 bytes must yield NULL";
  KIT_EXPECT_OK(omnirt_free(backend(), 0, nullptr));

  DeviceMemory d(backend());
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, 64, d.out()));
  unsigned char host[64] = {};
  KIT_EXPECT_OK(omnirt_memcpy(backend(), d.get(), host, 0, OMNIRT_MEMCPY_HOST_TO_DEVICE));
  KIT_EXPECT_OK(omnirt_memcpy(backend(), host, d.get(), 0, OMNIRT_MEMCPY_DEVICE_TO_HOST));
  KIT_EXPECT_OK(omnirt_memset(backend(), d.get(), 0, 0));
}

KIT_TEST(Memory, PinnedHostMemoryRoundTrips, 7) {
  KIT_REQUIRE(OMNIRT_FEATURE_HOST_ALLOC);
  constexpr size_t kSize = 65536 + 5;
  const std::vector<unsigned char> in = pattern(kSize, 4);
  PinnedMemory staging(backend()), back(backend());
  DeviceMemory d(backend());
  KIT_ASSERT_OK(omnirt_malloc_host(backend(), kSize, staging.out()));
  KIT_ASSERT_OK(omnirt_malloc_host(backend(), kSize, back.out()));
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, kSize, d.out()));
  std::copy(in.begin(), in.end(), static_cast<unsigned char*>(staging.get()));
  KIT_ASSERT_OK(omnirt_memcpy(backend(), d.get(), staging.get(), kSize, OMNIRT_MEMCPY_HOST_TO_DEVICE));
  KIT_ASSERT_OK(omnirt_memcpy(backend(), back.get(), d.get(), kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST));
  KIT_EXPECT_BYTES("pinned host -> device -> pinned host", back.get(), in.data(), kSize);
  KIT_EXPECT_OK(staging.reset());
  KIT_EXPECT_OK(omnirt_free_host(backend(), nullptr));
}

KIT_TEST(Memory, StreamOrderedAllocationsRoundTrip, 7) {
  KIT_REQUIRE(OMNIRT_FEATURE_STREAM_ORDERED_ALLOC | OMNIRT_FEATURE_ASYNC_COPY);
  constexpr size_t kSize = 100000;
  const std::vector<unsigned char> in = pattern(kSize, 5);
  std::vector<unsigned char> out(kSize, 0);
  Stream s(backend());
  KIT_ASSERT_OK(omnirt_stream_create(backend(), 0, s.out()));
  void* d = nullptr;
  KIT_ASSERT_OK(omnirt_malloc_async(backend(), kSize, s.get(), &d));
  KIT_EXPECT_OK(omnirt_memcpy_async(backend(), d, in.data(), kSize, OMNIRT_MEMCPY_HOST_TO_DEVICE, s.get()));
  KIT_EXPECT_OK(omnirt_memcpy_async(backend(), out.data(), d, kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST, s.get()));
  KIT_EXPECT_OK(omnirt_free_async(backend(), d, s.get()));
  KIT_ASSERT_OK(omnirt_stream_synchronize(backend(), s.get()));
  KIT_EXPECT_BYTES("host -> stream-ordered allocation -> host", out.data(), in.data(), kSize);
}

KIT_TEST(Memory, InfoReportsFreeWithinTotal, 7) {
  KIT_REQUIRE(OMNIRT_FEATURE_MEM_INFO);
  for (int32_t device = 0; device < kit().device_count; ++device) {
    size_t free_bytes = 0, total_bytes = 0;
    KIT_ASSERT_OK(omnirt_mem_get_info(backend(), device, &free_bytes, &total_bytes));
    EXPECT_GT(total_bytes, 0u) << "device " << device;
    EXPECT_LE(free_bytes, total_bytes) << "device " << device;
  }
}

}  // namespace
}  // namespace omnirt::conformance
