#include "report/report.h"

#include "module/tensor.h"

using omnirt::report::Stage;

void omnirt_report::add_timeline(const omnirt::wrap::TimelineEntry& entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  device_ = entry.device;
  timeline_.push_back(entry);
  if (entry.engine_load) {
    stages_.push_back(Stage{"engine_load", "engine", entry.tag,
                            static_cast<double>(entry.engine_load->elapsed_ns) / 1e6, std::nullopt,
                            entry.engine_load->status == OMNIRT_STATUS_OK});
  }
  stages_.push_back(Stage{"wrap_module", "wrap", entry.tag,
                          static_cast<double>(entry.elapsed_ns) / 1e6, std::nullopt,
                          entry.selected() != nullptr});
}

void omnirt_report::add_run(const std::string& tag, const omnirt::CompletedTime& time,
                            omnirt_status status, const DLManagedTensor* const* outputs,
                            const std::vector<std::string>& names) {
  omnirt::report::Outputs summary{0, tag, {}};
  for (size_t i = 0; i < names.size(); ++i) {
    const DLTensor& t = outputs[i]->dl_tensor;
    summary.tensors.push_back({names[i], std::vector<int64_t>(t.shape, t.shape + t.ndim),
                               omnirt::tensor::dtype_name(t.dtype),
                               omnirt::tensor::device_name(t.device)});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const bool ok = status == OMNIRT_STATUS_OK;
  stages_.push_back(Stage{"run", "run", tag, time.wall_ms, time.device_ms, ok});
  if (ok) {
    summary.run = runs_;
    last_outputs_ = std::move(summary);
  } else {
    ++failed_runs_;
  }
  ++runs_;
}

void omnirt_report::add_stage(const std::string& name, double ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  stages_.push_back(Stage{name, "embedder", "", ms, std::nullopt, true});
}

void omnirt_report::add_note(const std::string& tag, const std::string& plugin,
                             const std::string& message, omnirt::report::During during) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (omnirt::report::Note& n : notes_) {
    if (n.tag == tag && n.backend == plugin && n.message == message) {
      ++n.count;
      return;
    }
  }
  notes_.push_back({during == omnirt::report::During::kRun ? std::optional<size_t>(runs_)
                                                            : std::nullopt,
                    tag, plugin, message, 1});
}

void omnirt_report::add_error(omnirt_status status, const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  errors_.push_back({status, message});
}

