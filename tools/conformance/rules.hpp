// The rule each test checks: a number of abi/PLUGIN_RULES.md, or the slot
// contract written in abi/include/omnirt/backend.h.
#ifndef OMNIRT_CONFORMANCE_RULES_HPP_
#define OMNIRT_CONFORMANCE_RULES_HPP_

#include <string>

namespace omnirt::conformance {

// A test that checks a slot's documented behaviour rather than a numbered rule.
inline constexpr int kContract = 0;

// "rule 7 (Honest capabilities)" or "contract (backend.h)".
std::string describe_rule(int rule);

// The rule's title as PLUGIN_RULES.md writes it; "" for kContract or an
// unknown number.
std::string rule_title(int rule);

// Records which rule a test checks. Called by KIT_TEST at static
// initialisation; returns true so that it can initialise a variable.
bool tag_rule(const char* suite, const char* test, int rule);

// The rule tagged for a test as GoogleTest names it: an instantiation prefix
// ("Kit/Features") and a parameter suffix ("MatchBehaviour/STREAMS") are
// ignored. kContract when untagged.
int rule_of(const std::string& suite, const std::string& test);

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_RULES_HPP_
