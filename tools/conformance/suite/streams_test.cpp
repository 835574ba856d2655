// Streams (rule 7 where advertised): lifecycle and query semantics, work on
// one stream runs in the order enqueued, device synchronize waits for every
// stream, and stream_wait_event orders work across streams.
#include <algorithm>
#include <memory>
#include <vector>

#include "kit.hpp"
#include "resources.hpp"

namespace omnirt::conformance {
namespace {

class Streams : public KitTest {
 protected:
  Streams() : KitTest(Needs::kDevice, OMNIRT_FEATURE_STREAMS) {}
};

// Large enough that work is still running when the next call is made.
constexpr size_t kBig = size_t{8} << 20;

KIT_TEST(Streams, CreateSynchronizeQueryDestroy, 7) {
  for (int32_t device = 0; device < kit().device_count; ++device) {
    SCOPED_TRACE("device " + std::to_string(device));
    Stream a(backend()), b(backend());
    KIT_ASSERT_OK(omnirt_stream_create(backend(), device, a.out()));
    KIT_ASSERT_OK(omnirt_stream_create(backend(), device, b.out()));
    EXPECT_NE(a.get(), b.get()) << "two streams share a handle";
    KIT_EXPECT_OK(omnirt_stream_synchronize(backend(), a.get()));
    KIT_EXPECT_STATUS(omnirt_stream_query(backend(), a.get()), OMNIRT_STATUS_OK)
        << "a stream with no work is idle";
    KIT_EXPECT_OK(a.reset());
    KIT_EXPECT_OK(b.reset());
  }
  KIT_EXPECT_OK(omnirt_stream_destroy(backend(), nullptr));
}

KIT_TEST(Streams, AsyncSetThenCopyRunInOrder, 7) {
  KIT_REQUIRE(OMNIRT_FEATURE_ASYNC_COPY);
  Stream s(backend());
  KIT_ASSERT_OK(omnirt_stream_create(backend(), 0, s.out()));
  DeviceMemory d(backend());
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, kBig, d.out()));
  // Each round overwrites the device buffer, then copies it out: a copy that
  // ran early or late sees another round's value.
  constexpr unsigned char kValues[] = {0x11, 0x22, 0x33, 0x44};
  std::vector<std::unique_ptr<StagingBuffer>> out;
  for (unsigned char v : kValues) {
    out.push_back(std::make_unique<StagingBuffer>(backend(), kBig, 0));
    KIT_ASSERT_OK(omnirt_memset_async(backend(), d.get(), v, kBig, s.get()));
    KIT_ASSERT_OK(omnirt_memcpy_async(backend(), out.back()->data(), d.get(), kBig,
                                      OMNIRT_MEMCPY_DEVICE_TO_HOST, s.get()));
  }
  const omnirt_status busy = omnirt_stream_query(backend(), s.get());
  EXPECT_TRUE(busy == OMNIRT_STATUS_OK || busy == OMNIRT_STATUS_NOT_READY)
      << "stream_query returned " << describe_failure(busy) << ", expected OK or NOT_READY";
  KIT_ASSERT_OK(omnirt_stream_synchronize(backend(), s.get()));
  KIT_EXPECT_STATUS(omnirt_stream_query(backend(), s.get()), OMNIRT_STATUS_OK)
      << "a synchronized stream is idle";
  for (size_t i = 0; i < out.size(); ++i) {
    KIT_EXPECT_FILLED("copy of round " + std::to_string(i), out[i]->data(), kValues[i], kBig);
  }

  const std::vector<unsigned char> in = pattern(kBig, 6);
  StagingBuffer staged(backend(), kBig, 0), back(backend(), kBig, 0);
  std::copy(in.begin(), in.end(), staged.data());
  KIT_ASSERT_OK(omnirt_memcpy_async(backend(), d.get(), staged.data(), kBig,
                                    OMNIRT_MEMCPY_HOST_TO_DEVICE, s.get()));
  KIT_ASSERT_OK(omnirt_memcpy_async(backend(), back.data(), d.get(), kBig,
                                    OMNIRT_MEMCPY_DEVICE_TO_HOST, s.get()));
  KIT_ASSERT_OK(omnirt_stream_synchronize(backend(), s.get()));
  KIT_EXPECT_BYTES("host -> device -> host on one stream", back.data(), in.data(), kBig);
}

KIT_TEST(Streams, DeviceSynchronizeWaitsForEveryStream, 7) {
  KIT_REQUIRE(OMNIRT_FEATURE_ASYNC_COPY);
  constexpr unsigned char kValues[] = {0x5A, 0xA5};
  Stream s0(backend()), s1(backend());
  DeviceMemory d0(backend()), d1(backend());
  StagingBuffer h0(backend(), kBig, 0), h1(backend(), kBig, 0);
  Stream* streams[] = {&s0, &s1};
  DeviceMemory* device[] = {&d0, &d1};
  StagingBuffer* host[] = {&h0, &h1};
  for (int i = 0; i < 2; ++i) {
    KIT_ASSERT_OK(omnirt_stream_create(backend(), 0, streams[i]->out()));
    KIT_ASSERT_OK(omnirt_malloc(backend(), 0, kBig, device[i]->out()));
    KIT_ASSERT_OK(omnirt_memset_async(backend(), device[i]->get(), kValues[i], kBig, streams[i]->get()));
    KIT_ASSERT_OK(omnirt_memcpy_async(backend(), host[i]->data(), device[i]->get(), kBig,
                                      OMNIRT_MEMCPY_DEVICE_TO_HOST, streams[i]->get()));
  }
  KIT_ASSERT_OK(omnirt_device_synchronize(backend(), 0));
  for (int i = 0; i < 2; ++i) {
    KIT_EXPECT_FILLED("stream " + std::to_string(i) + " after device synchronize",
                      host[i]->data(), kValues[i], kBig);
    KIT_EXPECT_STATUS(omnirt_stream_query(backend(), streams[i]->get()), OMNIRT_STATUS_OK)
        << "stream " << i << " after device synchronize";
  }
}

KIT_TEST(Streams, WaitEventOrdersWorkAcrossStreams, 7) {
  KIT_REQUIRE(OMNIRT_FEATURE_STREAM_WAIT_EVENT | OMNIRT_FEATURE_ASYNC_COPY);
  Stream producer(backend()), consumer(backend());
  Event done(backend());
  DeviceMemory d(backend());
  StagingBuffer out(backend(), kBig, 0);
  KIT_ASSERT_OK(omnirt_stream_create(backend(), 0, producer.out()));
  KIT_ASSERT_OK(omnirt_stream_create(backend(), 0, consumer.out()));
  KIT_ASSERT_OK(omnirt_event_create(backend(), 0, done.out()));
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, kBig, d.out()));
  // Several passes keep the producer busy; only the last value may be seen.
  for (unsigned char v = 1; v <= 8; ++v) {
    KIT_ASSERT_OK(omnirt_memset_async(backend(), d.get(), v, kBig, producer.get()));
  }
  KIT_ASSERT_OK(omnirt_event_record(backend(), done.get(), producer.get()));
  KIT_ASSERT_OK(omnirt_stream_wait_event(backend(), consumer.get(), done.get()));
  KIT_ASSERT_OK(omnirt_memcpy_async(backend(), out.data(), d.get(), kBig,
                                    OMNIRT_MEMCPY_DEVICE_TO_HOST, consumer.get()));
  KIT_ASSERT_OK(omnirt_stream_synchronize(backend(), consumer.get()));
  KIT_EXPECT_FILLED("the consumer stream copied before the producer's recorded work finished",
                    out.data(), 8, kBig);
  KIT_EXPECT_OK(omnirt_stream_synchronize(backend(), producer.get()));
}

}  // namespace
}  // namespace omnirt::conformance
