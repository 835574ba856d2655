// The human-readable run summary omnirt-run prints (without --json).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "latency.h"

namespace omnirt::run {

/// Prints the report (docs/run-report.md) and, when iters > 0, the latency.
void print_summary(std::ostream& out, const nlohmann::ordered_json& report, const Latency& latency,
                   size_t iters);

}  // namespace omnirt::run
