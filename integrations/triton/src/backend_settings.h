// Backend-wide settings from `tritonserver --backend-config=omnirt,KEY=VALUE`:
// how the process's one OmniRT host is made.
#pragma once

#include <string>
#include <vector>

namespace omnirt::triton {

struct BackendSettings {
  /// `config`: OmniRT's YAML configuration file ("" for none; then
  /// OMNIRT_CONFIG names one unless the environment is ignored).
  std::string config_path;
  /// `plugin-dirs`: ':'-separated plugin files or directories, searched first.
  std::vector<std::string> plugin_dirs;
  /// `ignore-environment`: skip OMNIRT_PLUGIN_PATH and OMNIRT_CONFIG.
  bool ignore_environment = false;
  /// `skip-installed-plugins`: skip the plugin directory next to libomnirt.so.
  bool skip_installed_plugins = false;
  /// Keys given that are none of the above (Triton's own included), for the log.
  std::vector<std::string> other_keys;
};

/// Reads Triton's backend configuration JSON ({"cmdline": {"KEY": "VALUE"}}).
/// Other keys (Triton adds its own, such as backend-directory and
/// default-max-batch-size) are listed in other_keys. A bad value throws
/// Error(INVALID_ARG) naming the key.
BackendSettings parse_backend_settings(const std::string& json);

}  // namespace omnirt::triton
