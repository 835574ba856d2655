// Collects each test's outcome with the rule it checks, prints the summary
// (failures and skips with their reasons, then "N passed, N failed, N
// skipped") and writes the JSON report for CI.
#ifndef OMNIRT_CONFORMANCE_REPORT_HPP_
#define OMNIRT_CONFORMANCE_REPORT_HPP_

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace omnirt::conformance {

struct Outcome {
  enum Result { kPassed, kFailed, kSkipped };
  std::string name;  // "Suite.Test" as GoogleTest names it
  int rule;          // see rules.hpp
  Result result;
  std::string message;  // failure messages or the skip reason
  std::string gist;     // one line for the summary: the first failure's last line
};

class Recorder : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo& info) override;
  void OnTestPartResult(const ::testing::TestPartResult& part) override;
  void OnTestEnd(const ::testing::TestInfo& info) override;

  const std::vector<Outcome>& outcomes() const { return outcomes_; }
  size_t count(Outcome::Result result) const;

 private:
  std::vector<Outcome> outcomes_;
  std::string messages_;
  std::string gist_;
};

// Writes the summary to `out`; its last line is "N passed, N failed, N skipped".
void print_summary(std::FILE* out, const Recorder& recorder);

// The machine-readable report (schema_version 1).
std::string json_report(const Recorder& recorder);

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_REPORT_HPP_
