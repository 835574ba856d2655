#include "backend_options.hpp"

#include <yaml-cpp/yaml.h>

namespace omnirt::conformance {

std::map<std::string, std::string> backend_options(const std::string& config_path,
                                                   const std::string& backend) {
  std::map<std::string, std::string> options;
  if (config_path.empty()) return options;
  try {
    const YAML::Node node = YAML::LoadFile(config_path)["backends"][backend]["options"];
    if (node.IsMap()) {
      for (const auto& option : node) {
        options[option.first.as<std::string>()] = option.second.as<std::string>();
      }
    }
  } catch (const YAML::Exception&) {
    options.clear();  // the host reports a bad file; probes then run without options
  }
  return options;
}

}  // namespace omnirt::conformance
