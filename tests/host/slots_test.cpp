// Slots (backend.h, "Slots"): a slot that does not point into the plugin's
// own code rejects the plugin naming it, feature bit set or not; an optional
// slot whose bit is clear is never called, whatever it holds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "test_support.h"

namespace omnirt_test {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

struct GarbageCase {
  const char* label;
  const char* path;
  const char* where;  // regex for what the reason says the slot points at
};

void PrintTo(const GarbageCase& c, std::ostream* os) { *os << c.label; }

class GarbageSlotTest : public ::testing::TestWithParam<GarbageCase> {};

// Loaded in this process (vetting off): the check must not need a child.
TEST_P(GarbageSlotTest, RejectsThePluginAtValidateNamingTheSlot) {
  const GarbageCase& c = GetParam();
  HostPtr host = make_vetting_host({c.path, ZOO_GOOD}, {OMNIRT_VETTING_OFF, "", 0});
  ASSERT_TRUE(host);
  const auto record = candidate_at(host.get(), c.path);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->loaded, 0);
  EXPECT_EQ(record->stage, OMNIRT_STAGE_NEGOTIATE);  // validate failed
  EXPECT_EQ(record->status, OMNIRT_STATUS_INCOMPATIBLE);
  EXPECT_THAT(record->reason, MatchesRegex("vtable slot 'mem_get_info' points " + std::string(c.where) +
                                           ", not into the plugin's code"));
  omnirt_backend* good = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host.get(), "good", &good), OMNIRT_STATUS_OK);
}

INSTANTIATE_TEST_SUITE_P(
    Slots, GarbageSlotTest,
    // libc's abort, or the sanitizer runtime's interceptor of it in those builds.
    ::testing::Values(GarbageCase{"into_libc", ZOO_SLOTS_GARBAGE_LIBC, "into '/[^']*\\.so[^']*'"},
                      GarbageCase{"into_libc_bit_set", ZOO_SLOTS_GARBAGE_LIBC_BIT, "into '/[^']*\\.so[^']*'"},
                      GarbageCase{"into_data", ZOO_SLOTS_GARBAGE_DATA, "into the library's own data, not its code"},
                      GarbageCase{"into_data_bit_set", ZOO_SLOTS_GARBAGE_DATA_BIT,
                                  "into the library's own data, not its code"},
                      GarbageCase{"into_nowhere", ZOO_SLOTS_GARBAGE_NOWHERE, "to 0x3000, which no loaded file maps"},
                      GarbageCase{"into_nowhere_bit_set", ZOO_SLOTS_GARBAGE_NOWHERE_BIT,
                                  "to 0x3000, which no loaded file maps"}));

// Every optional slot of this plugin but collectives_library aborts the
// process if called; it advertises no feature. Everything routed must answer
// NOT_SUPPORTED.
TEST(UnadvertisedSlots, AreNeverCalled) {
  HostPtr host = make_vetting_host({ZOO_SLOTS_UNADVERTISED}, {OMNIRT_VETTING_OFF, "", 0});
  omnirt_backend* b = nullptr;
  ASSERT_EQ(omnirt_host_get_backend(host.get(), "unadvertised", &b), OMNIRT_STATUS_OK) << last_message();
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(omnirt_get_capabilities(b, &caps), OMNIRT_STATUS_OK);
  EXPECT_EQ(caps.features, 0u);

  int token = 0;
  auto* s = reinterpret_cast<omnirt_stream*>(&token);
  auto* e = reinterpret_cast<omnirt_event*>(&token);
  auto* g = reinterpret_cast<omnirt_graph*>(&token);
  auto* comm = reinterpret_cast<omnirt_comm*>(&token);
  // Out-parameters of their own, so that a call that clears one leaves the
  // handles above for the calls after it.
  void* p = nullptr;
  omnirt_stream* made_stream = nullptr;
  omnirt_event* made_event = nullptr;
  omnirt_graph* made_graph = nullptr;
  omnirt_comm* made_comm = nullptr;
  const int32_t devices[] = {0};
  size_t n = 0;
  float ms = 0;
  char text[64];
  omnirt_memory_stats stats{};
  stats.struct_size = sizeof stats;
  const omnirt_op_set* sets = nullptr;
  const struct {
    const char* call;
    omnirt_status status;
  } calls[] = {
      {"malloc_host", omnirt_malloc_host(b, 8, &p)},
      {"free_host", omnirt_free_host(b, &token)},
      {"malloc_async", omnirt_malloc_async(b, 8, s, &p)},
      {"free_async", omnirt_free_async(b, &token, s)},
      {"memcpy_async", omnirt_memcpy_async(b, &token, &token, 1, OMNIRT_MEMCPY_HOST_TO_HOST, s)},
      {"memset_async", omnirt_memset_async(b, &token, 0, 1, s)},
      {"mem_get_info", omnirt_mem_get_info(b, 0, &n, &n)},
      {"memory_stats", omnirt_get_memory_stats(b, 0, &stats)},
      {"reset_memory_stats", omnirt_reset_memory_stats(b, 0)},
      {"stream_create", omnirt_stream_create(b, 0, &made_stream)},
      {"stream_synchronize", omnirt_stream_synchronize(b, s)},
      {"stream_query", omnirt_stream_query(b, s)},
      {"stream_wait_event", omnirt_stream_wait_event(b, s, e)},
      {"stream_get_default", omnirt_stream_get_default(b, 0, &made_stream)},
      {"event_create", omnirt_event_create(b, 0, &made_event)},
      {"event_record", omnirt_event_record(b, e, s)},
      {"event_query", omnirt_event_query(b, e)},
      {"event_synchronize", omnirt_event_synchronize(b, e)},
      {"event_elapsed_time", omnirt_event_elapsed_time(b, e, e, &ms)},
      {"stream_begin_capture", omnirt_stream_begin_capture(b, s)},
      {"stream_end_capture", omnirt_stream_end_capture(b, s, &made_graph)},
      {"graph_launch", omnirt_graph_launch(b, g, s)},
      {"graph_destroy", omnirt_graph_destroy(b, g)},
      {"event_destroy", omnirt_event_destroy(b, e)},
      {"comm_destroy", omnirt_comm_destroy(b, comm)},
      {"list_op_sets", omnirt_list_op_sets(b, &sets, &n)},
      {"group_start", omnirt_group_start(b)},
  };
  for (const auto& c : calls) EXPECT_EQ(c.status, OMNIRT_STATUS_NOT_SUPPORTED) << c.call;

  // collectives_library reports on its feature, so it is called with the bit
  // clear, and making a communicator says what it said.
  EXPECT_EQ(omnirt_collectives_library(b, text, sizeof text), OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_EQ(omnirt_comm_create_local(b, devices, 1, &made_comm), OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_THAT(last_message(), HasSubstr("fake: no collective library here"));

  EXPECT_EQ(omnirt_stream_destroy(b, s), OMNIRT_STATUS_NOT_SUPPORTED);

  // A report samples memory statistics: not through the slot either.
  omnirt_report* report = nullptr;
  ASSERT_EQ(omnirt_report_create(b, "r", &report), OMNIRT_STATUS_OK);
  char* json = nullptr;
  EXPECT_EQ(omnirt_report_to_json(report, &json), OMNIRT_STATUS_OK) << last_message();
  omnirt_string_free(json);
  omnirt_report_destroy(report);

  // A named op falls back to the base implementation, never to op_run.
  omnirt_backend* implementer = nullptr;
  EXPECT_EQ(omnirt_op_resolve(b, "rms_norm", &implementer), OMNIRT_STATUS_NOT_SUPPORTED);
}

}  // namespace
}  // namespace omnirt_test
