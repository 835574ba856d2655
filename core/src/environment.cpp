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

}  // namespace

Environment read_environment(bool ignore) {
  Environment env;
  env.ignored = ignore;
  env.secure = getauxval(AT_SECURE) != 0;
  if (ignore) return env;
  env.plugin_path = variable("OMNIRT_PLUGIN_PATH");
  env.config_path = variable("OMNIRT_CONFIG");
  env.log_level = variable("OMNIRT_LOG_LEVEL");
  const std::optional<std::string> disable = variable("OMNIRT_DISABLE_COMPILE");
  env.disable_compile = disable.has_value() && !disable->empty() && *disable != "0";
  return env;
}

}  // namespace omnirt
