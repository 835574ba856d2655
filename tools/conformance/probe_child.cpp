#include "probe_child.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>

#include "probe.hpp"

namespace omnirt::conformance {

void emit(const std::string& key, const std::string& value) {
  std::string flat = value;
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  std::printf("%s=%s\n", key.c_str(), flat.c_str());
  std::fflush(stdout);
}

int probe_child_main(const std::string& scenario, const std::string& plugin_path,
                     const std::string& config_path) {
  unsigned min = 0, max = 0;
  if (std::sscanf(scenario.c_str(), "negotiate:%u:%u", &min, &max) == 2) {
    return probe_negotiate(plugin_path, min, max);
  }
  const std::map<std::string, std::function<int()>> scenarios = {
      {"raw", [&] { return probe_raw(plugin_path, config_path); }},
      {"footprint", [&] { return probe_footprint(plugin_path, config_path); }},
      {"double_free", [&] { return probe_double_free(plugin_path, config_path); }},
      {"recreate", [&] { return probe_recreate(plugin_path, config_path); }},
  };
  const auto it = scenarios.find(scenario);
  if (it == scenarios.end()) {
    std::fprintf(stderr, "omnirt-conformance: unknown probe '%s'\n", scenario.c_str());
    return 2;
  }
  return it->second();
}

}  // namespace omnirt::conformance
