// The environment variables the host reads, read once per host creation.
#ifndef OMNIRT_CORE_ENVIRONMENT_H_
#define OMNIRT_CORE_ENVIRONMENT_H_

#include <optional>
#include <string>

namespace omnirt {

/// OMNIRT_* variables as this host sees them. All are read with secure_getenv,
/// so a setuid/setgid process gets none of them (decision 9).
struct Environment {
  /// The embedder asked to ignore the environment (OMNIRT_HOST_IGNORE_ENVIRONMENT).
  bool ignored = false;
  /// Secure-execution mode (AT_SECURE): secure_getenv hides every variable.
  bool secure = false;
  std::optional<std::string> plugin_path;  ///< OMNIRT_PLUGIN_PATH
  std::optional<std::string> config_path;  ///< OMNIRT_CONFIG
  std::optional<std::string> log_level;    ///< OMNIRT_LOG_LEVEL
  /// OMNIRT_DISABLE_COMPILE set to anything but "" or "0".
  bool disable_compile = false;
  std::optional<std::string> vetting;                ///< OMNIRT_VETTING
  std::optional<std::string> vetting_cache_dir;      ///< OMNIRT_VETTING_CACHE_DIR
  std::optional<std::string> vetting_time_limit_ms;  ///< OMNIRT_VETTING_TIME_LIMIT_MS
  /// Where this user's caches go: $XDG_CACHE_HOME, else $HOME/.cache (each
  /// only when absolute). Not OMNIRT_* input, so read even when the embedder
  /// ignores the environment; never in secure-execution mode. Empty if none.
  std::string user_cache_home;
};

/// Reads the variables, or none of them when `ignore` is true.
Environment read_environment(bool ignore);

}  // namespace omnirt

#endif  // OMNIRT_CORE_ENVIRONMENT_H_
