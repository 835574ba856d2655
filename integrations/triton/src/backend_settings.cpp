#include "backend_settings.h"

#include <nlohmann/json.hpp>

#include "error.h"
#include "setting_values.h"

namespace omnirt::triton {

BackendSettings parse_backend_settings(const std::string& json) {
  const nlohmann::json config = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) {
    throw Error(TRITONSERVER_ERROR_INTERNAL, "the backend configuration from Triton is not a JSON object");
  }
  BackendSettings settings;
  const auto cmdline = config.find("cmdline");
  if (cmdline == config.end() || !cmdline->is_object()) return settings;
  for (const auto& [key, value] : cmdline->items()) {
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    const std::string where = "--backend-config=omnirt," + key;
    if (key == "config") {
      settings.config_path = text;
    } else if (key == "plugin-dirs") {
      settings.plugin_dirs = split_paths(text);
    } else if (key == "ignore-environment") {
      settings.ignore_environment = parse_flag(where, text);
    } else if (key == "skip-installed-plugins") {
      settings.skip_installed_plugins = parse_flag(where, text);
    } else {
      settings.other_keys.push_back(key);
    }
  }
  return settings;
}

}  // namespace omnirt::triton
