#include "progress_printer.hpp"

#include <filesystem>
#include <string>

namespace omnirt::conformance {
namespace {

// A kit source file by name only: "loading_test.cpp:75: ", not the path on
// the machine that built the kit.
std::string without_directories(const std::string& line) {
  const size_t colon = line.find(':');
  const size_t slash = line.rfind('/', colon);
  if (colon == std::string::npos || slash == std::string::npos || line.find(' ') < slash) return line;
  return line.substr(slash + 1);
}

// `message` indented under its test, each line's source path cut to its file name.
void print_indented(std::FILE* out, const std::string& where, const std::string& message) {
  size_t start = 0;
  std::string prefix = where;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    std::fprintf(out, "    %s%s\n", prefix.c_str(),
                 without_directories(message.substr(start, end - start)).c_str());
    prefix.clear();
    start = end + 1;
  }
}

}  // namespace

void ProgressPrinter::OnTestProgramStart(const ::testing::UnitTest& unit) {
  std::fprintf(out_, "running %d conformance tests\n", unit.test_to_run_count());
  std::fflush(out_);
}

void ProgressPrinter::OnTestEnd(const ::testing::TestInfo& info) {
  const ::testing::TestResult& result = *info.result();
  if (result.Skipped()) return;  // the summary gives each skip with its reason
  std::fprintf(out_, "%-7s %s.%s (%lld ms)\n", result.Failed() ? "FAILED" : "ok",
               info.test_suite_name(), info.name(), static_cast<long long>(result.elapsed_time()));
  for (int i = 0; i < result.total_part_count(); ++i) {
    const ::testing::TestPartResult& part = result.GetTestPartResult(i);
    if (!part.failed()) continue;
    const std::string where = part.file_name() != nullptr
                                  ? std::filesystem::path(part.file_name()).filename().string() +
                                        ":" + std::to_string(part.line_number()) + ": "
                                  : "";
    print_indented(out_, where, part.message());
  }
  std::fflush(out_);
}

}  // namespace omnirt::conformance
