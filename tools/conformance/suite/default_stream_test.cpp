// The default stream (ABI 1.1, where advertised): stream_get_default names,
// per device, the stream a NULL stream argument stands for. The handle is the
// same on every call, works with the stream and event calls (so work enqueued
// "on NULL" can be waited for and timed), orders the work the device's sync
// copies wait for, and belongs to the backend: stream_destroy refuses it.
#include <vector>

#include "kit.hpp"
#include "resources.hpp"

namespace omnirt::conformance {
namespace {

class DefaultStream : public KitTest {
 protected:
  DefaultStream() : KitTest(Needs::kDevice, OMNIRT_FEATURE_DEFAULT_STREAM) {}
};

constexpr size_t kBig = size_t{8} << 20;

KIT_TEST(DefaultStream, IsOneHandlePerDevice, kContract) {
  std::vector<omnirt_stream*> handles;
  for (int32_t device = 0; device < kit().device_count; ++device) {
    SCOPED_TRACE("device " + std::to_string(device));
    omnirt_stream* first = nullptr;
    omnirt_stream* again = nullptr;
    KIT_ASSERT_OK(omnirt_stream_get_default(backend(), device, &first));
    KIT_ASSERT_OK(omnirt_stream_get_default(backend(), device, &again));
    EXPECT_NE(first, nullptr) << "stream_get_default returned OK and a NULL handle";
    EXPECT_EQ(first, again) << "two calls for one device gave two handles";
    for (omnirt_stream* other : handles) EXPECT_NE(first, other) << "two devices share a handle";
    handles.push_back(first);
    KIT_EXPECT_OK(omnirt_stream_synchronize(backend(), first));
    KIT_EXPECT_STATUS(omnirt_stream_query(backend(), first), OMNIRT_STATUS_OK)
        << "a synchronized default stream is idle";
  }
}

KIT_TEST(DefaultStream, StreamDestroyRefusesIt, kContract) {
  omnirt_stream* s = nullptr;
  KIT_ASSERT_OK(omnirt_stream_get_default(backend(), 0, &s));
  const omnirt_status status = omnirt_stream_destroy(backend(), s);
  EXPECT_NE(status, OMNIRT_STATUS_OK) << "stream_destroy destroyed the default stream";
  KIT_EXPECT_OK(omnirt_stream_synchronize(backend(), s)) << "after the refused stream_destroy";
}

KIT_TEST(DefaultStream, EventsOnItTimeAndAwaitItsWork, kContract) {
  KIT_REQUIRE(OMNIRT_FEATURE_EVENTS);
  omnirt_stream* s = nullptr;
  KIT_ASSERT_OK(omnirt_stream_get_default(backend(), 0, &s));
  Event start(backend()), end(backend());
  KIT_ASSERT_OK(omnirt_event_create(backend(), 0, start.out()));
  KIT_ASSERT_OK(omnirt_event_create(backend(), 0, end.out()));
  DeviceMemory d(backend());
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, kBig, d.out()));
  KIT_ASSERT_OK(omnirt_event_record(backend(), start.get(), s));
  if (has(OMNIRT_FEATURE_ASYNC_COPY)) {
    for (int pass = 0; pass < 4; ++pass) {
      KIT_ASSERT_OK(omnirt_memset_async(backend(), d.get(), pass, kBig, s));
    }
  }
  KIT_ASSERT_OK(omnirt_event_record(backend(), end.get(), s));
  KIT_ASSERT_OK(omnirt_event_synchronize(backend(), end.get()));
  KIT_EXPECT_STATUS(omnirt_event_query(backend(), end.get()), OMNIRT_STATUS_OK);
  if (has(OMNIRT_FEATURE_EVENT_TIMING)) {
    float ms = -1;
    KIT_ASSERT_OK(omnirt_event_elapsed_time(backend(), start.get(), end.get(), &ms));
    EXPECT_GE(ms, 0.0f);
  }
  if (has(OMNIRT_FEATURE_STREAM_WAIT_EVENT)) {
    Stream other(backend());
    KIT_ASSERT_OK(omnirt_stream_create(backend(), 0, other.out()));
    KIT_ASSERT_OK(omnirt_event_record(backend(), start.get(), other.get()));
    KIT_ASSERT_OK(omnirt_stream_wait_event(backend(), s, start.get()));
    KIT_ASSERT_OK(omnirt_stream_synchronize(backend(), s));
  }
}

// Sync copies wait for the work on the device's default stream (backend.h):
// work enqueued on this handle must be that work.
KIT_TEST(DefaultStream, IsTheStreamSyncCopiesWaitFor, kContract) {
  KIT_REQUIRE(OMNIRT_FEATURE_ASYNC_COPY);
  omnirt_stream* s = nullptr;
  KIT_ASSERT_OK(omnirt_stream_get_default(backend(), 0, &s));
  DeviceMemory d(backend());
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, kBig, d.out()));
  for (unsigned char v = 1; v <= 8; ++v) {
    KIT_ASSERT_OK(omnirt_memset_async(backend(), d.get(), v, kBig, s));
  }
  StagingBuffer out(backend(), kBig, 0);
  KIT_ASSERT_OK(omnirt_memcpy(backend(), out.data(), d.get(), kBig, OMNIRT_MEMCPY_DEVICE_TO_HOST));
  KIT_EXPECT_FILLED("a sync copy after work on the default stream's handle", out.data(), 8, kBig);
}

}  // namespace
}  // namespace omnirt::conformance
