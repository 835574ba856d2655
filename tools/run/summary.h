// The human-readable run summary omnirt-run prints (without --json).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "run_times.h"

namespace omnirt::run {

/// What omnirt-run itself asked for, so that the summary names its own
/// options where the report names the API flags they set.
struct SummaryContext {
  bool no_compile = false;  ///< --no-compile (OMNIRT_WRAP_DISABLE_COMPILE)
};

/// Prints the report (docs/run-report.md) and, when there are timed runs,
/// their wall time to completion and device time.
void print_summary(std::ostream& out, const nlohmann::ordered_json& report, const RunTimes& times,
                   const SummaryContext& context);

}  // namespace omnirt::run
