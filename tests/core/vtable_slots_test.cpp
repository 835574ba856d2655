// The slot table (omnirt/cpp/slots.hpp): required slots, the capability bit
// of every optional slot; and the host clearing the slots of features a
// plugin lacks.
#include "vtable_slots.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace omnirt {
namespace {

void dummy() {}

omnirt_backend_vtable all_slots_set() {
  omnirt_backend_vtable v;
  std::memset(&v, 0, sizeof v);
  void (*fn)() = &dummy;
  for (const slots::Slot& slot : slots::kVtableSlots) std::memcpy(reinterpret_cast<char*>(&v) + slot.offset, &fn, sizeof fn);
  return v;
}

TEST(VtableSlots, EveryOptionalSlotHasExactlyOneFeatureBitOfTheAbi) {
  size_t required = 0;
  for (const slots::Slot& slot : slots::kVtableSlots) {
    if (slot.required()) {
      ++required;
      continue;
    }
    EXPECT_EQ(slot.feature & (slot.feature - 1), 0u) << slot.name;
    EXPECT_NE(slot.feature & OMNIRT_FEATURES_1_1, 0u) << slot.name;
  }
  EXPECT_EQ(required, 11u);
}

TEST(VtableSlots, SlotsOfClearBitsAreCleared) {
  omnirt_backend_vtable v = all_slots_set();
  clear_unadvertised_slots(&v, OMNIRT_FEATURE_STREAMS | OMNIRT_FEATURE_NAMED_OPS);
  EXPECT_NE(v.create, nullptr);
  EXPECT_NE(v.memset_sync, nullptr);
  EXPECT_NE(v.stream_create, nullptr);
  EXPECT_NE(v.stream_query, nullptr);
  EXPECT_NE(v.list_op_sets, nullptr);
  EXPECT_NE(v.op_run, nullptr);
  EXPECT_EQ(v.event_create, nullptr);
  EXPECT_EQ(v.stream_wait_event, nullptr);
  EXPECT_EQ(v.memory_stats, nullptr);
  EXPECT_EQ(v.module_load, nullptr);
  EXPECT_EQ(v.comm_create, nullptr);
  EXPECT_EQ(v.stream_get_default, nullptr);
}

// collectives_library says why a backend's collective library is missing,
// which is exactly when the bit is clear.
TEST(VtableSlots, AReportSlotStaysCallableWithItsBitClear) {
  omnirt_backend_vtable v = all_slots_set();
  clear_unadvertised_slots(&v, 0);
  EXPECT_NE(v.collectives_library, nullptr);
  EXPECT_EQ(v.all_reduce, nullptr);
}

TEST(VtableSlots, MissingRequiredSlotsAreNamed) {
  omnirt_backend_vtable v = all_slots_set();
  v.memset_sync = nullptr;
  v.destroy = nullptr;
  const auto missing = missing_required_slots(v);
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0], "destroy");
  EXPECT_EQ(missing[1], "memset_sync");
}

}  // namespace
}  // namespace omnirt
