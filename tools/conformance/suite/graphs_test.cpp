// Graph capture (GRAPH_CAPTURE, rule 7): captured work is recorded, not run,
// until the graph is launched, and a graph replays on every launch.
#include "kit.hpp"
#include "resources.hpp"

namespace omnirt::conformance {
namespace {

class Graphs : public KitTest {
 protected:
  Graphs() : KitTest(Needs::kDevice, OMNIRT_FEATURE_GRAPH_CAPTURE | OMNIRT_FEATURE_ASYNC_COPY) {}
};

KIT_TEST(Graphs, CaptureDefersWorkAndLaunchReplaysIt, 7) {
  constexpr size_t kSize = 1 << 20;
  Stream s(backend());
  Graph g(backend());
  DeviceMemory d(backend());
  StagingBuffer out(backend(), kSize, 0xEE);
  KIT_ASSERT_OK(omnirt_stream_create(backend(), 0, s.out()));
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, kSize, d.out()));
  KIT_ASSERT_OK(omnirt_memset(backend(), d.get(), 0x11, kSize));

  KIT_ASSERT_OK(omnirt_stream_begin_capture(backend(), s.get()));
  KIT_ASSERT_OK(omnirt_memset_async(backend(), d.get(), 0x5A, kSize, s.get()));
  KIT_ASSERT_OK(omnirt_memcpy_async(backend(), out.data(), d.get(), kSize,
                                    OMNIRT_MEMCPY_DEVICE_TO_HOST, s.get()));
  KIT_ASSERT_OK(omnirt_stream_end_capture(backend(), s.get(), g.out()));
  ASSERT_NE(g.get(), nullptr);
  KIT_ASSERT_OK(omnirt_stream_synchronize(backend(), s.get()));
  KIT_EXPECT_FILLED("captured work ran before launch", out.data(), 0xEE, kSize);

  for (int launch = 1; launch <= 2; ++launch) {
    SCOPED_TRACE("launch " + std::to_string(launch));
    KIT_ASSERT_OK(omnirt_memset(backend(), d.get(), 0x11, kSize));
    std::fill(out.data(), out.data() + kSize, 0xEE);
    KIT_ASSERT_OK(omnirt_graph_launch(backend(), g.get(), s.get()));
    KIT_ASSERT_OK(omnirt_stream_synchronize(backend(), s.get()));
    KIT_EXPECT_FILLED("the graph did not replay its work", out.data(), 0x5A, kSize);
  }
  KIT_EXPECT_OK(g.reset());
  KIT_EXPECT_OK(omnirt_graph_destroy(backend(), nullptr));
}

}  // namespace
}  // namespace omnirt::conformance
