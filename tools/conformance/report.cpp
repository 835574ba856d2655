#include "report.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>
#include <sstream>

#include "kit.hpp"

namespace omnirt::conformance {
namespace {

const char* result_name(Outcome::Result result) {
  switch (result) {
    case Outcome::kPassed: return "passed";
    case Outcome::kFailed: return "failed";
    case Outcome::kSkipped: return "skipped";
  }
  return "";
}

std::string version_string(uint32_t packed) {
  return std::to_string(OMNIRT_VERSION_MAJOR(packed)) + "." +
         std::to_string(OMNIRT_VERSION_MINOR(packed));
}

// One line for the summary. Kit messages end with the line that says what is
// wrong (GoogleTest's "Expected equality of these values" comes before it);
// SCOPED_TRACE context follows as "Google Test trace:" lines, kept in brackets.
std::string gist_of(const std::string& message) {
  static const std::regex location("^.*:[0-9]+: ");
  const size_t trace_at = message.find("\nGoogle Test trace:");
  std::string core = message.substr(0, trace_at);
  while (!core.empty() && core.back() == '\n') core.pop_back();
  std::string gist = core.substr(core.rfind('\n') + 1);
  if (trace_at != std::string::npos) {
    std::istringstream trace(message.substr(trace_at + 1));
    std::string line, context;
    std::getline(trace, line);  // "Google Test trace:"
    while (std::getline(trace, line)) {
      if (!line.empty()) context += (context.empty() ? "" : "; ") + std::regex_replace(line, location, "");
    }
    gist += " [" + context + "]";
  }
  return gist;
}

}  // namespace

void Recorder::OnTestStart(const ::testing::TestInfo&) {
  messages_.clear();
  gist_.clear();
}

void Recorder::OnTestPartResult(const ::testing::TestPartResult& part) {
  if (gist_.empty()) gist_ = gist_of(part.message());
  if (!messages_.empty()) messages_ += "\n";
  if (part.failed() && part.file_name() != nullptr) {
    messages_ += std::filesystem::path(part.file_name()).filename().string() + ":" +
                 std::to_string(part.line_number()) + ": ";
  }
  messages_ += part.message();
}

void Recorder::OnTestEnd(const ::testing::TestInfo& info) {
  const ::testing::TestResult& r = *info.result();
  const Outcome::Result result = r.Failed()    ? Outcome::kFailed
                                 : r.Skipped() ? Outcome::kSkipped
                                               : Outcome::kPassed;
  outcomes_.push_back({std::string(info.test_suite_name()) + "." + info.name(),
                       rule_of(info.test_suite_name(), info.name()), result, messages_, gist_});
}

size_t Recorder::count(Outcome::Result result) const {
  size_t n = 0;
  for (const Outcome& o : outcomes_) n += o.result == result ? 1 : 0;
  return n;
}

void print_summary(std::FILE* out, const Recorder& recorder) {
  const Kit& k = kit();
  std::fprintf(out, "\nomnirt-conformance on %s\n", k.plugin_path.c_str());
  if (k.session->backend() != nullptr) {
    std::fprintf(out, "backend %s %s, ABI %s, %s\n", k.info.name, k.info.plugin_version,
                 version_string(k.info.abi_version).c_str(),
                 k.info.available ? "available"
                                  : (std::string("unavailable: ") +
                                     k.info.unavailable_reason).c_str());
  }
  for (const Outcome& o : recorder.outcomes()) {
    if (o.result == Outcome::kPassed) continue;
    std::fprintf(out, "%-7s %s [%s]: %s\n", o.result == Outcome::kFailed ? "FAILED" : "SKIPPED",
                 o.name.c_str(), describe_rule(o.rule).c_str(), o.gist.c_str());
  }
  std::fprintf(out, "%zu passed, %zu failed, %zu skipped\n", recorder.count(Outcome::kPassed),
               recorder.count(Outcome::kFailed), recorder.count(Outcome::kSkipped));
  std::fflush(out);
}

std::string json_report(const Recorder& recorder) {
  const Kit& k = kit();
  nlohmann::ordered_json report;
  report["schema_version"] = 1;
  report["kit_abi_version"] = version_string(OMNIRT_ABI_VERSION);
  report["plugin_path"] = k.plugin_path;
  if (k.session->backend() != nullptr) {
    report["backend"] = k.info.name;
    report["plugin_version"] = k.info.plugin_version;
    report["abi_version"] = version_string(k.info.abi_version);
    report["available"] = k.info.available != 0;
    report["unavailable_reason"] = k.info.unavailable_reason;
  } else {
    report["backend"] = nullptr;
  }
  report["summary"] = {{"passed", recorder.count(Outcome::kPassed)},
                       {"failed", recorder.count(Outcome::kFailed)},
                       {"skipped", recorder.count(Outcome::kSkipped)}};
  nlohmann::ordered_json tests = nlohmann::ordered_json::array();
  for (const Outcome& o : recorder.outcomes()) {
    nlohmann::ordered_json t;
    t["name"] = o.name;
    t["rule"] = o.rule == kContract ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.rule);
    t["checks"] = describe_rule(o.rule);
    t["result"] = result_name(o.result);
    t["message"] = o.message;
    tests.push_back(std::move(t));
  }
  report["tests"] = std::move(tests);
  // Plugin text reaches the report through the host, which hands out UTF-8
  // only; replacing what is not is defence in depth (a dump must not throw).
  return report.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace omnirt::conformance
