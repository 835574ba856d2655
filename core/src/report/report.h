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
  /// "wrap", "run" or "embedder".
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

}  // namespace omnirt::report

struct omnirt_report {
  omnirt_report(omnirt_backend* b, std::string id) : backend(b), run_id(std::move(id)) {}

  void add_timeline(const omnirt::wrap::TimelineEntry& entry);
  /// A run timed to completion (`time`; wall time up to the failure when
  /// `status` is not OK).
  void add_run(const std::string& tag, const omnirt::CompletedTime& time, omnirt_status status,
               const DLManagedTensor* const* outputs, size_t num_outputs);
  void add_stage(const std::string& name, double ms);
  void add_error(omnirt_status status, const std::string& message);
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
};
