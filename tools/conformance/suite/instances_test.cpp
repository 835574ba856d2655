// Rule 10, instances are independent: two hosts use one plugin at once
// without seeing each other's memory or statistics, and the plugin works
// again after a host unloaded it.
#include <string>
#include <vector>

#include "kit.hpp"
#include "probe.hpp"
#include "resources.hpp"

namespace omnirt::conformance {
namespace {

class Instances : public KitTest {};

void ExpectRoundTrip(omnirt_backend* b, unsigned seed, const std::string& what) {
  const std::string problem = round_trip_problem(b, 8192, seed);
  EXPECT_EQ(problem, "") << what << ": " << problem;
}

KIT_TEST(Instances, TwoHostsAtOnceAreIndependent, 10) {
  omnirt_backend* a = backend();
  {
    Session second(kit().plugin_path, kit().config_path);
    omnirt_backend* b = second.backend();
    ASSERT_NE(b, nullptr) << "a second host could not load the plugin: "
                          << (second.candidate() ? second.candidate()->reason : second.error());
    int32_t count = 0;
    KIT_ASSERT_OK(omnirt_get_device_count(b, &count));
    ASSERT_EQ(count, kit().device_count) << "the second instance sees other devices";

    DeviceMemory held(a);
    KIT_ASSERT_OK(omnirt_malloc(a, 0, 4096, held.out()));
    const bool stats = has(OMNIRT_FEATURE_MEMORY_STATS);
    omnirt_memory_stats before{}, after{};
    before.struct_size = after.struct_size = sizeof before;
    if (stats) {
      KIT_ASSERT_OK(omnirt_get_memory_stats(a, 0, &before));
    }
    DeviceMemory other(b);
    KIT_ASSERT_OK(omnirt_malloc(b, 0, 4096, other.out()));
    if (stats) {
      KIT_ASSERT_OK(omnirt_get_memory_stats(a, 0, &after));
    }
    if (stats && (before.known & OMNIRT_STAT_ALLOCATED_BYTES)) {
      EXPECT_EQ(after.allocated_bytes, before.allocated_bytes)
          << "an allocation through the second host moved the first host's statistics";
    }
    ExpectRoundTrip(a, 10, "first host, while a second one is open");
    ExpectRoundTrip(b, 11, "second host");
  }
  ExpectRoundTrip(a, 12, "first host, after the second one was destroyed");
}

KIT_TEST(Instances, WorkAgainAfterAHostUnloadedThePlugin, 10) {
  const ProbeResult p = run_probe("recreate");
  ASSERT_EQ(p.problem(), "") << "loading the plugin a second time: " << p.problem();
  for (const char* round : {"1", "2"}) {
    SCOPED_TRACE(std::string("host ") + round);
    EXPECT_EQ(p[std::string("round_") + round + "_loaded"], "1");
    const std::string problem = p[std::string("round_") + round + "_round_trip"];
    EXPECT_EQ(problem, "") << "copy to device and back: " << problem;
  }
}

}  // namespace
}  // namespace omnirt::conformance
