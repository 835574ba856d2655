// The host's logger.
#ifndef OMNIRT_CORE_LOGGING_H_
#define OMNIRT_CORE_LOGGING_H_

#include <spdlog/logger.h>

#include <optional>
#include <string_view>

#include "omnirt/types.h"

namespace omnirt {

struct Environment;
struct HostConfig;

/// The logger named "omnirt", writing to stderr. It is neither spdlog's
/// default logger nor registered in spdlog's registry, so the host and an
/// embedder that also uses spdlog never change each other's logging. One per
/// process (plugins keep the services pointer across hosts); never destroyed,
/// so a host destroyed during static destruction can still log.
spdlog::logger& logger() noexcept;

/// Parses trace|debug|info|warn|error|off.
std::optional<omnirt_log_level> parse_log_level(std::string_view word) noexcept;

/// spdlog's level for an omnirt_log_level (unknown values log as errors).
spdlog::level::level_enum to_spdlog_level(int32_t level) noexcept;

/// Sets the level for a new host: OMNIRT_LOG_LEVEL, else the config's
/// log_level, else warn. The level is process-wide: the latest host sets it.
void configure_logging(const Environment& env, const HostConfig& config);

}  // namespace omnirt

#endif  // OMNIRT_CORE_LOGGING_H_
