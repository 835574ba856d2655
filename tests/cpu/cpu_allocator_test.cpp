// CpuAllocator: alignment, exact statistics, and every way a free can be wrong.
#include "cpu_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "test_support.h"

namespace omnirt::cpu {
namespace {

using testing::status_of;

constexpr uint64_t kPlentyOfMemory = uint64_t{1} << 40;
constexpr size_t kAlign = CpuAllocator::kAlignment;

omnirt_memory_stats stats_of(const CpuAllocator& allocator) {
  omnirt_memory_stats stats{};
  allocator.stats(stats);
  return stats;
}

size_t rounded(size_t size) { return (size + kAlign - 1) / kAlign * kAlign; }

TEST(CpuAllocator, BlocksAreAlignedTo256BytesAndWritable) {
  CpuAllocator allocator(kPlentyOfMemory);
  for (size_t size : {size_t{1}, size_t{255}, size_t{256}, size_t{257}, size_t{4097}, size_t{1} << 20}) {
    void* ptr = allocator.allocate(size, MemoryKind::kDevice);
    ASSERT_NE(ptr, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % kAlign, 0u) << "size " << size;
    std::memset(ptr, 0xA5, size);
    allocator.release(ptr, MemoryKind::kDevice);
  }
}

TEST(CpuAllocator, ZeroBytesIsNullAndNoAllocation) {
  CpuAllocator allocator(kPlentyOfMemory);
  EXPECT_EQ(allocator.allocate(0, MemoryKind::kDevice), nullptr);
  allocator.release(nullptr, MemoryKind::kDevice);
  const auto stats = stats_of(allocator);
  EXPECT_EQ(stats.alloc_count, 0u);
  EXPECT_EQ(stats.free_count, 0u);
  EXPECT_EQ(stats.reserved_bytes, 0u);
}

TEST(CpuAllocator, StatsFollowEveryAllocationAndFreeExactly) {
  CpuAllocator allocator(kPlentyOfMemory);
  auto stats = stats_of(allocator);
  EXPECT_EQ(stats.known, unsigned(OMNIRT_STAT_ALLOCATED_BYTES | OMNIRT_STAT_PEAK_BYTES |
                                  OMNIRT_STAT_RESERVED_BYTES | OMNIRT_STAT_ALLOC_COUNT |
                                  OMNIRT_STAT_FREE_COUNT));

  void* a = allocator.allocate(1000, MemoryKind::kDevice);
  stats = stats_of(allocator);
  EXPECT_EQ(stats.allocated_bytes, 1000u);  // as requested, not rounded
  EXPECT_EQ(stats.peak_bytes, 1000u);
  EXPECT_GE(stats.reserved_bytes, rounded(1000));
  EXPECT_EQ(stats.alloc_count, 1u);
  const uint64_t reserved_a = stats.reserved_bytes;

  void* b = allocator.allocate(3000, MemoryKind::kPinnedHost);  // same memory, same stats
  stats = stats_of(allocator);
  EXPECT_EQ(stats.allocated_bytes, 4000u);
  EXPECT_EQ(stats.peak_bytes, 4000u);
  EXPECT_GE(stats.reserved_bytes, reserved_a + rounded(3000));
  EXPECT_EQ(stats.alloc_count, 2u);

  allocator.release(a, MemoryKind::kDevice);
  stats = stats_of(allocator);
  EXPECT_EQ(stats.allocated_bytes, 3000u);
  EXPECT_EQ(stats.peak_bytes, 4000u);
  EXPECT_EQ(stats.free_count, 1u);

  allocator.release(b, MemoryKind::kPinnedHost);
  stats = stats_of(allocator);
  EXPECT_EQ(stats.allocated_bytes, 0u);
  EXPECT_EQ(stats.reserved_bytes, 0u);
  EXPECT_EQ(stats.peak_bytes, 4000u);
  EXPECT_EQ(stats.alloc_count, 2u);
  EXPECT_EQ(stats.free_count, 2u);
}

TEST(CpuAllocator, ResetKeepsCurrentAllocationAsPeakAndZeroesCounts) {
  CpuAllocator allocator(kPlentyOfMemory);
  void* big = allocator.allocate(8192, MemoryKind::kDevice);
  void* kept = allocator.allocate(100, MemoryKind::kDevice);
  allocator.release(big, MemoryKind::kDevice);
  const uint64_t reserved = stats_of(allocator).reserved_bytes;

  allocator.reset_stats();
  auto stats = stats_of(allocator);
  EXPECT_EQ(stats.allocated_bytes, 100u);
  EXPECT_EQ(stats.peak_bytes, 100u);
  EXPECT_EQ(stats.reserved_bytes, reserved);
  EXPECT_EQ(stats.alloc_count, 0u);
  EXPECT_EQ(stats.free_count, 0u);

  allocator.release(kept, MemoryKind::kDevice);
  stats = stats_of(allocator);
  EXPECT_EQ(stats.allocated_bytes, 0u);
  EXPECT_EQ(stats.peak_bytes, 100u);
  EXPECT_EQ(stats.free_count, 1u);
}

TEST(CpuAllocator, DoubleFreeIsInvalidArgumentAndChangesNothing) {
  CpuAllocator allocator(kPlentyOfMemory);
  void* ptr = allocator.allocate(64, MemoryKind::kDevice);
  allocator.release(ptr, MemoryKind::kDevice);
  EXPECT_EQ(status_of([&] { allocator.release(ptr, MemoryKind::kDevice); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(stats_of(allocator).free_count, 1u);
}

TEST(CpuAllocator, ForeignAndInteriorPointersAreInvalidArgument) {
  CpuAllocator allocator(kPlentyOfMemory);
  int on_stack = 0;
  EXPECT_EQ(status_of([&] { allocator.release(&on_stack, MemoryKind::kDevice); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  char* ptr = static_cast<char*>(allocator.allocate(512, MemoryKind::kDevice));
  EXPECT_EQ(status_of([&] { allocator.release(ptr + 256, MemoryKind::kDevice); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  allocator.release(ptr, MemoryKind::kDevice);
}

TEST(CpuAllocator, FreeingWithTheOtherKindsCallIsInvalidArgument) {
  CpuAllocator allocator(kPlentyOfMemory);
  void* device = allocator.allocate(64, MemoryKind::kDevice);
  void* host = allocator.allocate(64, MemoryKind::kPinnedHost);
  try {
    allocator.release(device, MemoryKind::kPinnedHost);
    ADD_FAILURE() << "freeing device memory as host memory succeeded";
  } catch (const plugin::Error& e) {
    EXPECT_EQ(e.status(), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("free_device"), std::string::npos) << e.what();
  }
  EXPECT_EQ(status_of([&] { allocator.release(host, MemoryKind::kDevice); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  allocator.release(device, MemoryKind::kDevice);
  allocator.release(host, MemoryKind::kPinnedHost);
}

TEST(CpuAllocator, MoreThanTheMachineHasIsOutOfMemoryAndCountsNothing) {
  CpuAllocator allocator(1 << 20);
  EXPECT_EQ(status_of([&] { allocator.allocate((1 << 20) + 1, MemoryKind::kDevice); }),
            OMNIRT_STATUS_OUT_OF_MEMORY);
  EXPECT_EQ(status_of([&] { allocator.allocate(SIZE_MAX, MemoryKind::kDevice); }),
            OMNIRT_STATUS_OUT_OF_MEMORY);
  const auto stats = stats_of(allocator);
  EXPECT_EQ(stats.alloc_count, 0u);
  EXPECT_EQ(stats.reserved_bytes, 0u);
}

TEST(CpuAllocator, PendingReleaseStaysCountedAndRefusesASecondFree) {
  CpuAllocator allocator(kPlentyOfMemory);
  void* ptr = allocator.allocate(300, MemoryKind::kDevice);
  allocator.begin_release(ptr, MemoryKind::kDevice);
  EXPECT_EQ(stats_of(allocator).allocated_bytes, 300u);
  EXPECT_EQ(stats_of(allocator).free_count, 0u);
  EXPECT_EQ(status_of([&] { allocator.release(ptr, MemoryKind::kDevice); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { allocator.begin_release(ptr, MemoryKind::kDevice); }),
            OMNIRT_STATUS_INVALID_ARGUMENT);

  allocator.finish_release(ptr);
  const auto stats = stats_of(allocator);
  EXPECT_EQ(stats.allocated_bytes, 0u);
  EXPECT_EQ(stats.reserved_bytes, 0u);
  EXPECT_EQ(stats.free_count, 1u);
}

}  // namespace
}  // namespace omnirt::cpu
