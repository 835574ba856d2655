// Checks that need a process of their own run in a child: a load watched from
// a clean start, entry calls with host ranges no real host offers, the plugin
// unloaded and loaded again, calls that may crash. The kit re-runs itself with
// --internal-probe=<scenario>; the child prints key=value lines.
#ifndef OMNIRT_CONFORMANCE_PROBE_HPP_
#define OMNIRT_CONFORMANCE_PROBE_HPP_

#include <map>
#include <string>

namespace omnirt::conformance {

inline constexpr char kProbeFlag[] = "--internal-probe=";

struct ProbeResult {
  // "" when the child exited 0; else how it ended ("killed by SIGABRT").
  std::string failure;
  std::map<std::string, std::string> values;

  // "" when the child ran to its end without reporting an error ("error"
  // key); else how it ended or the error.
  std::string problem() const { return failure.empty() ? (*this)["error"] : failure; }

  // The value printed for `key`, "" when absent.
  std::string operator[](const std::string& key) const {
    const auto it = values.find(key);
    return it == values.end() ? "" : it->second;
  }
};

// Runs `scenario` on the kit's plugin and configuration in a child process.
ProbeResult run_probe(const std::string& scenario);

// run_probe() once per scenario and run; later calls return the first result.
// For scenarios several tests read.
const ProbeResult& shared_probe(const std::string& scenario);

// The child's side: runs `scenario`, prints its values, returns the exit code.
int probe_child_main(const std::string& scenario, const std::string& plugin_path,
                     const std::string& config_path);

// Scenario name for an entry call offering [min, max] (packed versions).
std::string negotiate_scenario(unsigned min, unsigned max);

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_PROBE_HPP_
