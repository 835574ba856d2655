// What the kit prints while it runs, in place of GoogleTest's printer: one
// line per test that ran ("ok" or "FAILED" with its messages, kit source
// files by name only). Skips are listed once, with their reasons, by the
// summary (report.hpp); GoogleTest's printer showed each three times, with
// the kit's source paths on the machine that built it.
#ifndef OMNIRT_CONFORMANCE_PROGRESS_PRINTER_HPP_
#define OMNIRT_CONFORMANCE_PROGRESS_PRINTER_HPP_

#include <gtest/gtest.h>

#include <cstdio>

namespace omnirt::conformance {

class ProgressPrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit ProgressPrinter(std::FILE* out) : out_(out) {}
  void OnTestProgramStart(const ::testing::UnitTest& unit) override;
  void OnTestEnd(const ::testing::TestInfo& info) override;

 private:
  std::FILE* out_;
};

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_PROGRESS_PRINTER_HPP_
