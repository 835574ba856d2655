#include "run_times.h"

namespace omnirt::run {

RunTimes timed_runs(const nlohmann::ordered_json& report, size_t count) {
  std::vector<const nlohmann::ordered_json*> runs;
  for (const auto& stage : report["stages"]) {
    if (stage.value("kind", "") == "run" && stage.value("ok", false)) runs.push_back(&stage);
  }
  RunTimes times;
  const size_t first = runs.size() > count ? runs.size() - count : 0;
  for (size_t i = first; i < runs.size(); ++i) {
    const auto& run = *runs[i];
    times.wall_ms.push_back(run["ms"].get<double>());
    if (run.contains("device_ms") && run["device_ms"].is_number()) {
      times.device_ms.push_back(run["device_ms"].get<double>());
    }
  }
  return times;
}

}  // namespace omnirt::run
