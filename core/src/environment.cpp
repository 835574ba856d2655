#include "environment.h"

#include <sys/auxv.h>

#include <cstdlib>
#include <cstring>

namespace omnirt {
namespace {

std::optional<std::string> variable(const char* name) {
  const char* value = secure_getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// An absolute directory named by `name` (plus `suffix`), or "".
std::string absolute_dir(const char* name, const char* suffix) {
  const char* value = secure_getenv(name);
  if (value == nullptr || value[0] != '/') return {};
  return std::string(value) + suffix;
}

}  // namespace

Environment read_environment(bool ignore) {
  Environment env;
  env.ignored = ignore;
  env.secure = getauxval(AT_SECURE) != 0;
  env.user_cache_home = absolute_dir("XDG_CACHE_HOME", "");
  if (env.user_cache_home.empty()) env.user_cache_home = absolute_dir("HOME", "/.cache");
  if (ignore) return env;
  env.plugin_path = variable("OMNIRT_PLUGIN_PATH");
  env.config_path = variable("OMNIRT_CONFIG");
  env.log_level = variable("OMNIRT_LOG_LEVEL");
  const std::optional<std::string> disable = variable("OMNIRT_DISABLE_COMPILE");
  env.disable_compile = disable.has_value() && !disable->empty() && *disable != "0";
  env.vetting = variable("OMNIRT_VETTING");
  env.vetting_cache_dir = variable("OMNIRT_VETTING_CACHE_DIR");
  env.vetting_time_limit_ms = variable("OMNIRT_VETTING_TIME_LIMIT_MS");
  return env;
}

}  // namespace omnirt
