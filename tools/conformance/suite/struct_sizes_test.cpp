// Rule 6: the plugin writes a caller's sized struct only up to the
// struct_size the caller set, and leaves struct_size as set. The slots are
// called directly (the "raw" probe): the host copies through structs of its
// own, which would hide what the plugin writes.
#include <string>

#include "kit.hpp"
#include "probe.hpp"

namespace omnirt::conformance {
namespace {

class StructSizes : public KitTest {
 protected:
  StructSizes() : KitTest(Needs::kBackend) {}

  // Fails unless `slot`, handed a short struct, kept within it and returned OK.
  static void expect_kept_within(const std::string& slot) {
    const ProbeResult& p = shared_probe("raw");
    ASSERT_EQ(p.problem(), "") << "calling the slots directly: " << p.problem();
    ASSERT_EQ(p["create_status"], "0") << "create failed: " << p["error_message"];
    EXPECT_EQ(p[slot + "_problem"], "") << slot << " " << p[slot + "_problem"];
    EXPECT_EQ(p[slot + "_status"], "0")
        << slot << " failed on a short struct (" << p["error_message"]
        << "); fill the fields that fit";
  }
};

KIT_TEST(StructSizes, CapabilitiesStayWithinStructSize, 6) { expect_kept_within("get_capabilities"); }

KIT_TEST(StructSizes, DeviceInfoStaysWithinStructSize, 6) {
  KIT_REQUIRE_DEVICE();
  expect_kept_within("get_device_info");
}

KIT_TEST(StructSizes, MemoryStatsStayWithinStructSize, 6) {
  KIT_REQUIRE(OMNIRT_FEATURE_MEMORY_STATS);
  expect_kept_within("memory_stats");
}

}  // namespace
}  // namespace omnirt::conformance
