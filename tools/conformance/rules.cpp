#include "rules.hpp"

#include <map>
#include <utility>

namespace omnirt::conformance {
namespace {

struct NumberedRule {
  int number;
  const char* title;
};

// Generated at configure time from abi/PLUGIN_RULES.md.
constexpr NumberedRule kRules[] = {
#include "plugin_rules.inc"
};

// Filled during static initialisation, read-only once main() runs.
std::map<std::pair<std::string, std::string>, int>& tags() {
  static std::map<std::pair<std::string, std::string>, int> map;
  return map;
}

}  // namespace

std::string rule_title(int rule) {
  for (const NumberedRule& r : kRules) {
    if (r.number == rule) return r.title;
  }
  return "";
}

std::string describe_rule(int rule) {
  if (rule == kContract) return "contract (backend.h)";
  return "rule " + std::to_string(rule) + " (" + rule_title(rule) + ")";
}

bool tag_rule(const char* suite, const char* test, int rule) {
  tags()[{suite, test}] = rule;
  return true;
}

int rule_of(const std::string& suite, const std::string& test) {
  const std::string base_suite = suite.substr(suite.rfind('/') + 1);
  const std::string base_test = test.substr(0, test.find('/'));
  const auto it = tags().find({base_suite, base_test});
  return it == tags().end() ? kContract : it->second;
}

}  // namespace omnirt::conformance
