// A plugin that crashes takes the kit down with it; this names the test (and
// its rule) that was running, so the crash is a finding rather than a mystery.
#ifndef OMNIRT_CONFORMANCE_CRASH_REPORTER_HPP_
#define OMNIRT_CONFORMANCE_CRASH_REPORTER_HPP_

#include <gtest/gtest.h>

namespace omnirt::conformance {

// Installs handlers for fatal signals when the tests start; each prints the
// running test and re-raises, so the exit status still shows the signal.
class CrashReporter : public ::testing::EmptyTestEventListener {
 public:
  void OnTestProgramStart(const ::testing::UnitTest&) override;
  void OnTestStart(const ::testing::TestInfo& info) override;
  void OnTestEnd(const ::testing::TestInfo&) override;
};

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_CRASH_REPORTER_HPP_
