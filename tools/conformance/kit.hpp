// What every group of the suite shares: the plugin under test and the host it
// was loaded into, the fixture that skips (with the reason) what this backend
// cannot run, status assertions, and KIT_TEST, which names the rule a test
// checks.
#ifndef OMNIRT_CONFORMANCE_KIT_HPP_
#define OMNIRT_CONFORMANCE_KIT_HPP_

#include <gtest/gtest.h>
#include <omnirt/omnirt.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "rules.hpp"
#include "session.hpp"

namespace omnirt::conformance {

// Set by main() before the suite runs; read-only while it runs.
struct Kit {
  std::string plugin_path;  // absolute
  std::string config_path;  // "" when none
  std::unique_ptr<Session> session;
  // Filled when session->backend() is not NULL.
  omnirt_backend_info info{};
  omnirt_capabilities caps{};
  int32_t device_count = 0;
};

const Kit& kit();
// main() only: loads the plugin into the kit's session and reads its facts.
Kit& init_kit(const std::string& plugin_path, const std::string& config_path);
void shutdown_kit();

// What a test needs before it can mean anything.
enum class Needs {
  kFile,     // only the plugin file (binary checks, probes)
  kBackend,  // the plugin loaded, available or not
  kDevice,   // the backend available with at least one device
};

// Why a test that needs `needs` and every OMNIRT_FEATURE_* bit in `features`
// cannot run on this backend; nullopt when it can.
std::optional<std::string> missing(Needs needs, uint64_t features = 0);

// Fixture of every group: skips with the reason when missing() says so.
class KitTest : public ::testing::Test {
 protected:
  explicit KitTest(Needs needs = Needs::kDevice, uint64_t features = 0)
      : needs_(needs), features_(features) {}
  void SetUp() override;

  static omnirt_backend* backend() { return kit().session->backend(); }
  static const omnirt_capabilities& caps() { return kit().caps; }
  static bool has(uint64_t feature) { return (kit().caps.features & feature) == feature; }

 private:
  Needs needs_;
  uint64_t features_;
};

// Skips the rest of a test body unless the backend has every bit in `features`.
#define KIT_REQUIRE(features)                                                       \
  if (auto kit_why = ::omnirt::conformance::missing(                                \
          ::omnirt::conformance::Needs::kDevice, (features)))                       \
  GTEST_SKIP() << *kit_why

#define KIT_REQUIRE_DEVICE() KIT_REQUIRE(0)

// A test that checks `rule` (a PLUGIN_RULES.md number, or kContract).
#define KIT_TEST(fixture, name, rule)                                               \
  [[maybe_unused]] static const bool kit_rule_##fixture##_##name =                  \
      ::omnirt::conformance::tag_rule(#fixture, #name, rule);                       \
  TEST_F(fixture, name)
#define KIT_TEST_P(fixture, name, rule)                                             \
  [[maybe_unused]] static const bool kit_rule_##fixture##_##name =                  \
      ::omnirt::conformance::tag_rule(#fixture, #name, rule);                       \
  TEST_P(fixture, name)

// Status assertions. A failure prints the call, the status by name and the
// message the backend recorded (omnirt_last_error).
::testing::AssertionResult IsOk(const char* expr, omnirt_status got);
::testing::AssertionResult HasStatus(const char* expr, const char* want_expr,
                                     omnirt_status got, omnirt_status want);
// A refused argument (bad pointer, index, kind): INVALID_ARGUMENT, or
// OUT_OF_RANGE for an index; either way with a message (rule 12).
::testing::AssertionResult IsRejected(const char* expr, omnirt_status got);

#define KIT_ASSERT_OK(expr) ASSERT_PRED_FORMAT1(::omnirt::conformance::IsOk, expr)
#define KIT_EXPECT_OK(expr) EXPECT_PRED_FORMAT1(::omnirt::conformance::IsOk, expr)
#define KIT_EXPECT_STATUS(expr, want) \
  EXPECT_PRED_FORMAT2(::omnirt::conformance::HasStatus, expr, want)
#define KIT_EXPECT_REJECTED(expr) EXPECT_PRED_FORMAT1(::omnirt::conformance::IsRejected, expr)

// "NOT_SUPPORTED: backend 'x' does not implement ..." for the last failure.
std::string describe_failure(omnirt_status status);

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_KIT_HPP_
