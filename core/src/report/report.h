// omnirt_report: what happened during one run (wrap_module timelines, stage
// timings, runs, outputs, errors), rendered as JSON by report_json.cpp.
// Every member function is thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "module/timeline.h"
#include "omnirt/cpp/host.hpp"
#include "omnirt/host.h"

namespace omnirt::report {

struct Stage {
  std::string name;
  /// "engine" (its load, within a wrap), "wrap", "run" or "embedder".
  std::string kind;
  /// Module tag for wrap and run stages.
  std::string tag;
  /// Wall time; for a run, until its work completed.
  double ms = 0;
  /// A run's device time, where the backend timed it with events.
  std::optional<double> device_ms;
  bool ok = true;
};

struct TensorSummary {
  /// The output's key when the module returns a dict, else "".
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;
  std::string device;
};

struct Outputs {
  /// Index of the run among the report's runs (0-based).
  size_t run = 0;
  std::string tag;
  std::vector<TensorSummary> tensors;
};

struct Error {
  omnirt_status status = 0;
  std::string message;
};

/// When a plugin's note was logged.
enum class During { kWrap, kRun };

/// A warning a plugin logged during a wrap or a run given the report.
struct Note {
  /// Index of the first run that logged it among the report's runs
  /// (0-based); nothing for one logged by omnirt_wrap_module.
  std::optional<size_t> run;
  std::string tag;
  std::string backend;
  std::string message;
  /// How many times it was logged: a repeat is counted, not listed again.
  uint64_t count = 1;
};

}  // namespace omnirt::report

struct omnirt_report {
  omnirt_report(omnirt_backend* b, std::string id) : backend(b), run_id(std::move(id)) {}

  void add_timeline(const omnirt::wrap::TimelineEntry& entry);
  /// A run timed to completion (`time`; wall time up to the failure when
  /// `status` is not OK). `names[i]` names outputs[i] (omnirt_module_output_name).
  void add_run(const std::string& tag, const omnirt::CompletedTime& time, omnirt_status status,
               const DLManagedTensor* const* outputs, const std::vector<std::string>& names);
  void add_stage(const std::string& name, double ms);
  void add_error(omnirt_status status, const std::string& message);
  /// A plugin's warning during a wrap, or during the run add_run records
  /// next; a repeat of a note of the same tag and plugin is counted.
  void add_note(const std::string& tag, const std::string& plugin, const std::string& message,
                omnirt::report::During during);
  /// The JSON document (see docs/run-report.md), sampling memory stats now.
  std::string to_json();

  omnirt_backend* const backend;
  const std::string run_id;
  const std::chrono::system_clock::time_point created = std::chrono::system_clock::now();

 private:
  std::mutex mutex_;
  /// Device whose memory statistics are sampled: that of the last wrap.
  int32_t device_ = 0;
  std::vector<omnirt::wrap::TimelineEntry> timeline_;
  std::vector<omnirt::report::Stage> stages_;
  size_t runs_ = 0;
  size_t failed_runs_ = 0;
  std::optional<omnirt::report::Outputs> last_outputs_;
  std::vector<omnirt::report::Error> errors_;
  std::vector<omnirt::report::Note> notes_;
};
