// Loading and negotiation: the plugin's way through the host's loader and its
// answers to the entry and load slots (rules 1, 3, 5, 8).
#include <filesystem>
#include <regex>
#include <string>

#include "kit.hpp"
#include "probe.hpp"

namespace omnirt::conformance {
namespace {

class Loading : public KitTest {
 protected:
  Loading() : KitTest(Needs::kFile) {}
  // The load slots called without a host.
  static const ProbeResult& raw() { return shared_probe("raw"); }
};

constexpr uint32_t kMajor = OMNIRT_ABI_VERSION_MAJOR;

KIT_TEST(Loading, PluginLoadsAndSaysWhetherItIsAvailable, 5) {
  const omnirt_candidate* c = kit().session->candidate();
  ASSERT_NE(c, nullptr) << "the host saw no candidate for " << kit().plugin_path;
  ASSERT_EQ(c->loaded, 1) << "the host rejected the plugin at stage '" << omnirt_load_stage_name(c->stage)
                          << "' with " << omnirt_status_name(c->status) << ": " << c->reason;
  const omnirt_backend_info& info = kit().info;
  if (info.available) {
    EXPECT_EQ(c->stage, OMNIRT_STAGE_AVAILABLE);
  } else {
    EXPECT_STRNE(info.unavailable_reason, "")
        << "an unavailable backend must say why, in words a user can act on";
  }
}

KIT_TEST(Loading, FileNameMatchesBackendName, 1) {
  const std::string file = std::filesystem::path(kit().plugin_path).filename().string();
  std::smatch m;
  ASSERT_TRUE(std::regex_match(file, m, std::regex("libomnirt_backend_([a-z0-9_]{1,32})\\.so")))
      << file << " is not named libomnirt_backend_<name>.so with <name> in [a-z0-9_]{1,32}";
  const omnirt_candidate* c = kit().session->candidate();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(std::string(c->backend_name), m[1].str())
      << "the vtable's name must equal the <name> of the file name";
}

KIT_TEST(Loading, AcceptsEveryHostRangeHoldingItsMajor, 3) {
  const uint32_t ranges[][2] = {
      {OMNIRT_MAKE_VERSION(kMajor, 0), OMNIRT_MAKE_VERSION(kMajor, 0)},
      {OMNIRT_MAKE_VERSION(kMajor, 0), OMNIRT_MAKE_VERSION(kMajor, 9)},
      {OMNIRT_MAKE_VERSION(kMajor - 1, 0), OMNIRT_MAKE_VERSION(kMajor + 1, 3)},
  };
  for (const auto& r : ranges) {
    const ProbeResult p = run_probe(negotiate_scenario(r[0], r[1]));
    ASSERT_EQ(p.problem(), "") << "calling the entry: " << p.problem();
    SCOPED_TRACE("host offering ABI " + std::to_string(OMNIRT_VERSION_MAJOR(r[0])) + "." +
                 std::to_string(OMNIRT_VERSION_MINOR(r[0])) + " to " +
                 std::to_string(OMNIRT_VERSION_MAJOR(r[1])) + "." +
                 std::to_string(OMNIRT_VERSION_MINOR(r[1])));
    ASSERT_EQ(p["vtable"], "1") << "the entry refused a host whose range holds major " << kMajor
                                << " (" << p["error_message"]
                                << "); negotiate by range, e.g. omnirt::plugin::negotiate";
    EXPECT_EQ(OMNIRT_VERSION_MAJOR(std::stoul(p["abi_version"])), kMajor);
  }
}

KIT_TEST(Loading, RefusesHostRangesWithoutItsMajor, 3) {
  const uint32_t ranges[][2] = {
      {OMNIRT_MAKE_VERSION(kMajor + 1, 0), OMNIRT_MAKE_VERSION(kMajor + 1, 9)},
      {OMNIRT_MAKE_VERSION(kMajor - 1, 0), OMNIRT_MAKE_VERSION(kMajor - 1, 9)},
  };
  for (const auto& r : ranges) {
    const ProbeResult p = run_probe(negotiate_scenario(r[0], r[1]));
    ASSERT_EQ(p.problem(), "") << "calling the entry: " << p.problem();
    SCOPED_TRACE("host offering only ABI major " + std::to_string(OMNIRT_VERSION_MAJOR(r[0])));
    EXPECT_EQ(p["vtable"], "0") << "the entry accepted a host that cannot speak its ABI major "
                                << kMajor;
    EXPECT_EQ(p["error_status"], std::to_string(OMNIRT_STATUS_INCOMPATIBLE))
        << "a refusal must call set_error(INCOMPATIBLE, ...) first";
    EXPECT_NE(p["error_message"], "") << "a refusal must say which versions it speaks";
  }
}

KIT_TEST(Loading, IsAvailableIsStableAndSaysWhyNot, 5) {
  const ProbeResult& p = raw();
  ASSERT_EQ(p.problem(), "") << "calling the load slots: " << p.problem();
  ASSERT_EQ(p["create_status"], "0") << "create failed: " << p["error_message"];
  for (const char* round : {"1", "2"}) {
    EXPECT_EQ(p[std::string("is_available_status_") + round], "0")
        << "is_available must return OK whenever it could answer";
  }
  EXPECT_TRUE(p["available_1"] == "0" || p["available_1"] == "1")
      << "*available must be 0 or 1, was " << p["available_1"];
  EXPECT_EQ(p["available_1"], p["available_2"]) << "is_available changed its answer";
  if (p["available_1"] == "0") {
    EXPECT_NE(p["reason_1"], "") << "no reason given for being unavailable";
    EXPECT_EQ(p["reason_1"], p["reason_2"]) << "is_available changed its reason";
    EXPECT_EQ(p["small_reason_terminated"], "1")
        << "the reason was not truncated and NUL-terminated within the capacity given";
  }
  EXPECT_EQ(p["reason_overrun"], "0") << "is_available wrote past the reason capacity given";
}

KIT_TEST(Loading, NoExceptionLeavesALoadSlot, 8) {
  const ProbeResult& p = raw();
  ASSERT_EQ(p.problem(), "") << "calling the load slots: " << p.problem();
  EXPECT_EQ(p["threw"], "") << "exceptions escaped from these slots; catch them and return a "
                               "status (omnirt/cpp/plugin.hpp does)";
}

}  // namespace
}  // namespace omnirt::conformance
