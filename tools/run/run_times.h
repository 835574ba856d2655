// The timed iterations' figures, read back from the run report. omnirt-run
// gives every run the report, so the host times each run to completion (wall
// time, and device time where the backend times events on the run's stream:
// omnirt::CompletionTimer); the latency printed is what the report recorded.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace omnirt::run {

struct RunTimes {
  /// Wall time to completion of each timed run, in run order.
  std::vector<double> wall_ms;
  /// Device time of those runs that have one (none when the backend cannot
  /// time events on the run's stream).
  std::vector<double> device_ms;
};

/// The last `count` successful runs of `report` (docs/run-report.md): the
/// timed ones, which follow the warm-up runs.
RunTimes timed_runs(const nlohmann::ordered_json& report, size_t count);

}  // namespace omnirt::run
