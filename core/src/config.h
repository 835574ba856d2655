// The host's YAML configuration, parsed and validated.
//
//   plugin_dirs: [/opt/vendor/omnirt/plugins]   # relative paths: from the file's directory
//   allow: [cpu, cuda]        # when present, only these backend names load
//   deny: [cambricon]
//   priorities: {cuda: 100, cpu: 0}
//   log_level: info           # trace|debug|info|warn|error|off
//   backends:
//     cpu:
//       options: {threads: "8"}   # strings, passed to the plugin's create()
//   wrap_module:
//     compile: true           # false skips the compile tier
//     policies:               # per-tag tier order; "default" for other tags
//       default: [compile, override, eager]
//       rms_norm: [override, compile, eager]
//   vetting: new              # off|new|always (docs/vetting.md)
//   vetting_cache_dir: /var/cache/omnirt   # relative paths: from the file's directory
//   vetting_time_limit_ms: 10000
#ifndef OMNIRT_CORE_CONFIG_H_
#define OMNIRT_CORE_CONFIG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "omnirt/host.h"
#include "omnirt/status.h"
#include "omnirt/types.h"

namespace omnirt {

/// `wrap_module`: how the compile -> override -> eager chain is ordered.
struct WrapModuleConfig {
  /// False when `compile: false` or OMNIRT_DISABLE_COMPILE=1 (applied by the host).
  bool compile = true;
  /// True when OMNIRT_DISABLE_COMPILE (not the file) switched compile off,
  /// so that the wrap_module timeline can name the switch.
  bool compile_disabled_by_environment = false;
  /// Tier order per tag, each list non-empty and without repeats. The tag
  /// "default" applies to tags without their own entry; when absent, the
  /// order is compile, override, eager.
  std::map<std::string, std::vector<omnirt_tier>> policies;
};

/// `vetting`, `vetting_cache_dir`, `vetting_time_limit_ms`: each unset when absent.
struct VettingConfig {
  std::optional<omnirt_vetting> mode;
  /// Made absolute against the file's directory.
  std::optional<std::string> cache_dir;
  std::optional<uint32_t> time_limit_ms;
};

/// Longest vetting time limit the configuration accepts (10 minutes).
inline constexpr uint32_t kMaxVettingTimeLimitMs = 600000;

/// The whole configuration. A default-constructed HostConfig is "no file".
struct HostConfig {
  /// The file it came from, or "" when there is none.
  std::string path;
  /// `plugin_dirs`, made absolute against the file's directory.
  std::vector<std::string> plugin_dirs;
  /// `allow`: when set, only these backend names load.
  std::optional<std::vector<std::string>> allow;
  /// `deny`: these backend names never load.
  std::vector<std::string> deny;
  /// `priorities`: higher is preferred by "auto"; absent names have 0.
  std::map<std::string, int32_t> priorities;
  /// `log_level`, when given.
  std::optional<omnirt_log_level> log_level;
  /// `backends.<name>.options`, passed to that backend's create().
  std::map<std::string, std::map<std::string, std::string>> backend_options;
  /// `wrap_module`.
  WrapModuleConfig wrap_module;
  /// `vetting` and its settings.
  VettingConfig vetting;
};

/// Parses "off", "new" or "always".
std::optional<omnirt_vetting> parse_vetting_mode(std::string_view word) noexcept;

/// Reads and validates the YAML file at `path` into *config. On failure
/// returns INVALID_ARGUMENT and sets *error to "<path>:<line>:<column>: <what>"
/// (no line for a file that cannot be read).
omnirt_status load_config(const std::string& path, HostConfig* config, std::string* error);

/// load_config() of YAML `text` as if read from the file `path` (which
/// names it in messages and anchors relative paths; it is not read).
omnirt_status parse_config(const std::string& text, const std::string& path, HostConfig* config,
                           std::string* error);

}  // namespace omnirt

#endif  // OMNIRT_CORE_CONFIG_H_
