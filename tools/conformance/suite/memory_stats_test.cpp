// Memory statistics (MEMORY_STATS, rule 7): fields are in bytes as requested
// and move by exactly what the test allocates; counts move by one; reset keeps
// the current bytes and clears peak and counts. Only fields flagged in
// `known` are checked, and a backend must know at least one.
#include <cstring>

#include "kit.hpp"
#include "resources.hpp"

namespace omnirt::conformance {
namespace {

class MemoryStats : public KitTest {
 protected:
  MemoryStats() : KitTest(Needs::kDevice, OMNIRT_FEATURE_MEMORY_STATS) {}

  static bool read(omnirt_memory_stats* s) {
    std::memset(s, 0, sizeof *s);
    s->struct_size = sizeof *s;
    return omnirt_get_memory_stats(backend(), 0, s) == OMNIRT_STATUS_OK;
  }
  static bool knows(const omnirt_memory_stats& s, uint32_t field) { return (s.known & field) != 0; }
};

// Not a multiple of any allocator's granule: stats count bytes as requested.
constexpr size_t kSize = 12345;

KIT_TEST(MemoryStats, MoveByTheBytesAllocated, 7) {
  KIT_ASSERT_OK(omnirt_reset_memory_stats(backend(), 0));
  omnirt_memory_stats before, during, after;
  ASSERT_TRUE(read(&before)) << describe_failure(omnirt_last_error()->status);
  ASSERT_NE(before.known, 0u) << "MEMORY_STATS is advertised but no field is known";
  {
    DeviceMemory d(backend());
    KIT_ASSERT_OK(omnirt_malloc(backend(), 0, kSize, d.out()));
    ASSERT_TRUE(read(&during));
  }
  ASSERT_TRUE(read(&after));

  if (knows(before, OMNIRT_STAT_ALLOCATED_BYTES)) {
    EXPECT_EQ(during.allocated_bytes, before.allocated_bytes + kSize)
        << "allocated_bytes must grow by the bytes requested";
    EXPECT_EQ(after.allocated_bytes, before.allocated_bytes) << "free must give them back";
  }
  if (knows(before, OMNIRT_STAT_PEAK_BYTES)) {
    EXPECT_EQ(before.peak_bytes, before.allocated_bytes) << "after a reset peak equals current";
    EXPECT_EQ(during.peak_bytes, before.allocated_bytes + kSize);
    EXPECT_EQ(after.peak_bytes, during.peak_bytes) << "a free must not lower the peak";
  }
  if (knows(before, OMNIRT_STAT_RESERVED_BYTES) && knows(before, OMNIRT_STAT_ALLOCATED_BYTES)) {
    EXPECT_GE(during.reserved_bytes, during.allocated_bytes)
        << "reserved_bytes includes what is handed out";
  }
  if (knows(before, OMNIRT_STAT_ALLOC_COUNT)) {
    EXPECT_EQ(before.alloc_count, 0u) << "a reset clears alloc_count";
    EXPECT_EQ(during.alloc_count, 1u);
    EXPECT_EQ(after.alloc_count, 1u);
  }
  if (knows(before, OMNIRT_STAT_FREE_COUNT)) {
    EXPECT_EQ(before.free_count, 0u) << "a reset clears free_count";
    EXPECT_EQ(during.free_count, 0u);
    EXPECT_EQ(after.free_count, 1u);
  }
}

KIT_TEST(MemoryStats, ResetKeepsLiveBytesAndRestartsPeak, 7) {
  DeviceMemory held(backend());
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, kSize, held.out()));
  {
    DeviceMemory gone(backend());
    KIT_ASSERT_OK(omnirt_malloc(backend(), 0, 3 * kSize, gone.out()));
  }
  omnirt_memory_stats before, reset;
  ASSERT_TRUE(read(&before));
  KIT_ASSERT_OK(omnirt_reset_memory_stats(backend(), 0));
  ASSERT_TRUE(read(&reset));
  if (knows(reset, OMNIRT_STAT_ALLOCATED_BYTES)) {
    EXPECT_EQ(reset.allocated_bytes, before.allocated_bytes) << "a reset must keep live bytes";
  }
  if (knows(reset, OMNIRT_STAT_PEAK_BYTES)) {
    EXPECT_LT(reset.peak_bytes, before.peak_bytes) << "a reset must lower the peak to the live bytes";
    if (knows(reset, OMNIRT_STAT_ALLOCATED_BYTES)) {
      EXPECT_EQ(reset.peak_bytes, reset.allocated_bytes) << "after a reset peak equals live bytes";
    }
  }
  if (knows(reset, OMNIRT_STAT_ALLOC_COUNT)) {
    EXPECT_EQ(reset.alloc_count, 0u) << "a reset clears alloc_count";
  }
  if (knows(reset, OMNIRT_STAT_FREE_COUNT)) {
    EXPECT_EQ(reset.free_count, 0u) << "a reset clears free_count";
  }
}

}  // namespace
}  // namespace omnirt::conformance
