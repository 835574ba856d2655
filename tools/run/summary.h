// The human-readable run summary omnirt-run prints (without --json).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "run_times.h"

namespace omnirt::run {

/// Prints the report (docs/run-report.md) and, when there are timed runs,
/// their wall time to completion and device time.
void print_summary(std::ostream& out, const nlohmann::ordered_json& report, const RunTimes& times);

}  // namespace omnirt::run
