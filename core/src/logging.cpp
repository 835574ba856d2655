#include "logging.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <memory>

#include "config.h"
#include "environment.h"

namespace omnirt {

spdlog::logger& logger() noexcept {
  static spdlog::logger* const instance = [] {
    auto* created = new spdlog::logger("omnirt", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    created->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [omnirt] [%l] %v");
    created->set_level(spdlog::level::warn);
    return created;
  }();
  return *instance;
}

std::optional<omnirt_log_level> parse_log_level(std::string_view word) noexcept {
  if (word == "trace") return OMNIRT_LOG_TRACE;
  if (word == "debug") return OMNIRT_LOG_DEBUG;
  if (word == "info") return OMNIRT_LOG_INFO;
  if (word == "warn") return OMNIRT_LOG_WARN;
  if (word == "error") return OMNIRT_LOG_ERROR;
  if (word == "off") return OMNIRT_LOG_OFF;
  return std::nullopt;
}

spdlog::level::level_enum to_spdlog_level(int32_t level) noexcept {
  switch (level) {
    case OMNIRT_LOG_TRACE: return spdlog::level::trace;
    case OMNIRT_LOG_DEBUG: return spdlog::level::debug;
    case OMNIRT_LOG_INFO: return spdlog::level::info;
    case OMNIRT_LOG_WARN: return spdlog::level::warn;
    case OMNIRT_LOG_OFF: return spdlog::level::off;
    default: return spdlog::level::err;
  }
}

void configure_logging(const Environment& env, const HostConfig& config) {
  omnirt_log_level level = config.log_level.value_or(OMNIRT_LOG_WARN);
  if (env.log_level.has_value()) {
    if (const auto parsed = parse_log_level(*env.log_level)) {
      level = *parsed;
    } else {
      logger().warn("ignoring OMNIRT_LOG_LEVEL='{}': expected trace, debug, info, warn, error or off",
                    *env.log_level);
    }
  }
  logger().set_level(to_spdlog_level(level));
}

}  // namespace omnirt
