// The child side of run_probe(): each scenario prints what it saw as
// key=value lines through emit() and returns 0; a crash is the parent's
// finding.
#ifndef OMNIRT_CONFORMANCE_PROBE_CHILD_HPP_
#define OMNIRT_CONFORMANCE_PROBE_CHILD_HPP_

#include <cstdint>
#include <string>

namespace omnirt::conformance {

// Prints key=value on one line and flushes, so a later crash loses nothing.
void emit(const std::string& key, const std::string& value);

// The plugin without a host (probe_raw.cpp).
int probe_negotiate(const std::string& plugin, uint32_t min, uint32_t max);
int probe_raw(const std::string& plugin, const std::string& config);

// The plugin through a host, as production loads it (probe_host.cpp).
int probe_footprint(const std::string& plugin, const std::string& config);
int probe_double_free(const std::string& plugin, const std::string& config);
int probe_recreate(const std::string& plugin, const std::string& config);

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_PROBE_CHILD_HPP_
