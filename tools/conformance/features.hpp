// The optional features of the ABI by name, for skip reasons, reports and the
// capability-versus-behaviour table.
#ifndef OMNIRT_CONFORMANCE_FEATURES_HPP_
#define OMNIRT_CONFORMANCE_FEATURES_HPP_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace omnirt::conformance {

struct Feature {
  uint64_t bit;      // one OMNIRT_FEATURE_* bit
  const char* name;  // its suffix: "STREAMS"
};

// Prints the name in test parameters.
void PrintTo(const Feature& feature, std::ostream* os);

// Every OMNIRT_FEATURE_* bit the kit's headers define, in bit order.
const std::vector<Feature>& known_features();

// OR of known_features().
uint64_t known_feature_bits();

// The features `feature` cannot be used without (ASYNC_COPY needs STREAMS:
// every async call takes a stream).
uint64_t prerequisites(uint64_t feature);

// "STREAMS|EVENTS"; bits the kit does not know are printed in hex.
std::string feature_names(uint64_t bits);

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_FEATURES_HPP_
