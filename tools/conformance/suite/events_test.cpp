// Events (rule 7 where advertised): query and synchronize semantics, and
// elapsed time that is non-negative, grows with the work between the events,
// and refuses events never recorded.
#include "kit.hpp"
#include "resources.hpp"

namespace omnirt::conformance {
namespace {

class Events : public KitTest {
 protected:
  Events() : KitTest(Needs::kDevice, OMNIRT_FEATURE_EVENTS) {}
};

KIT_TEST(Events, QueryAndSynchronizeFollowRecordedWork, 7) {
  Stream s(backend());
  Event e(backend());
  KIT_ASSERT_OK(omnirt_stream_create(backend(), 0, s.out()));
  KIT_ASSERT_OK(omnirt_event_create(backend(), 0, e.out()));
  KIT_EXPECT_STATUS(omnirt_event_query(backend(), e.get()), OMNIRT_STATUS_OK)
      << "an event never recorded counts as complete";
  DeviceMemory d(backend());
  constexpr size_t kSize = size_t{32} << 20;
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, kSize, d.out()));
  if (has(OMNIRT_FEATURE_ASYNC_COPY)) {
    KIT_ASSERT_OK(omnirt_memset_async(backend(), d.get(), 7, kSize, s.get()));
  }
  KIT_ASSERT_OK(omnirt_event_record(backend(), e.get(), s.get()));
  const omnirt_status pending = omnirt_event_query(backend(), e.get());
  EXPECT_TRUE(pending == OMNIRT_STATUS_OK || pending == OMNIRT_STATUS_NOT_READY)
      << "event_query returned " << describe_failure(pending) << ", expected OK or NOT_READY";
  KIT_ASSERT_OK(omnirt_event_synchronize(backend(), e.get()));
  KIT_EXPECT_STATUS(omnirt_event_query(backend(), e.get()), OMNIRT_STATUS_OK)
      << "a synchronized event is complete";
  KIT_EXPECT_OK(e.reset());
  KIT_EXPECT_OK(omnirt_event_destroy(backend(), nullptr));
}

KIT_TEST(Events, ElapsedTimeGrowsWithWork, 7) {
  KIT_REQUIRE(OMNIRT_FEATURE_EVENT_TIMING | OMNIRT_FEATURE_ASYNC_COPY);
  Stream s(backend());
  KIT_ASSERT_OK(omnirt_stream_create(backend(), 0, s.out()));
  DeviceMemory d(backend());
  constexpr size_t kSize = size_t{32} << 20;
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, kSize, d.out()));
  Event idle_start(backend()), idle_end(backend()), work_start(backend()), work_end(backend());
  for (Event* e : {&idle_start, &idle_end, &work_start, &work_end}) {
    KIT_ASSERT_OK(omnirt_event_create(backend(), 0, e->out()));
  }
  KIT_ASSERT_OK(omnirt_event_record(backend(), idle_start.get(), s.get()));
  KIT_ASSERT_OK(omnirt_event_record(backend(), idle_end.get(), s.get()));
  KIT_ASSERT_OK(omnirt_event_record(backend(), work_start.get(), s.get()));
  for (int pass = 0; pass < 16; ++pass) {
    KIT_ASSERT_OK(omnirt_memset_async(backend(), d.get(), pass, kSize, s.get()));
  }
  KIT_ASSERT_OK(omnirt_event_record(backend(), work_end.get(), s.get()));
  KIT_ASSERT_OK(omnirt_event_synchronize(backend(), work_end.get()));

  float idle_ms = -1, work_ms = -1;
  KIT_ASSERT_OK(omnirt_event_elapsed_time(backend(), idle_start.get(), idle_end.get(), &idle_ms));
  KIT_ASSERT_OK(omnirt_event_elapsed_time(backend(), work_start.get(), work_end.get(), &work_ms));
  EXPECT_GE(idle_ms, 0.0f);
  EXPECT_GE(work_ms, 0.0f);
  EXPECT_GT(work_ms, idle_ms) << "512 MiB of memsets between two events took no longer than "
                                 "nothing between two events";
}

KIT_TEST(Events, ElapsedTimeRefusesEventsNeverRecorded, 7) {
  KIT_REQUIRE(OMNIRT_FEATURE_EVENT_TIMING);
  Event a(backend()), b(backend());
  KIT_ASSERT_OK(omnirt_event_create(backend(), 0, a.out()));
  KIT_ASSERT_OK(omnirt_event_create(backend(), 0, b.out()));
  float ms = 0;
  KIT_EXPECT_STATUS(omnirt_event_elapsed_time(backend(), a.get(), b.get(), &ms),
                    OMNIRT_STATUS_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace omnirt::conformance
