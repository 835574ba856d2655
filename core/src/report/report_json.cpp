// Renders an omnirt_report as JSON; the schema is docs/run-report.md.
#include <algorithm>
#include <ctime>

#include <nlohmann/json.hpp>

#include "backend.h"
#include "host_services.h"
#include "module/tensor.h"
#include "omnirt/cpp/host.hpp"
#include "report/report.h"

// ordered: the document reads in the order docs/run-report.md shows.
using json = nlohmann::ordered_json;

namespace {

// 2: a run's `ms` is its wall time to completion (it was the call's, which
// may return before the device finishes), and runs carry device time.
constexpr int kSchemaVersion = 2;

// Total, mean, min and max of a series of milliseconds; each is `empty` when
// the series is.
class Spread {
 public:
  void add(double ms) {
    min_ = count_ == 0 ? ms : std::min(min_, ms);
    max_ = std::max(max_, ms);
    total_ += ms;
    ++count_;
  }
  size_t count() const { return count_; }
  json total(const json& empty = nullptr) const { return figure(total_, empty); }
  json mean(const json& empty = nullptr) const {
    return figure(total_ / static_cast<double>(count_ > 0 ? count_ : 1), empty);
  }
  json min(const json& empty = nullptr) const { return figure(min_, empty); }
  json max(const json& empty = nullptr) const { return figure(max_, empty); }

 private:
  json figure(double value, const json& empty) const { return count_ > 0 ? json(value) : empty; }

  size_t count_ = 0;
  double total_ = 0, min_ = 0, max_ = 0;
};

std::string version_text(uint32_t packed) {
  return std::to_string(OMNIRT_VERSION_MAJOR(packed)) + "." +
         std::to_string(OMNIRT_VERSION_MINOR(packed));
}

std::string utc_text(std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

json backend_json(omnirt_backend* backend) {
  omnirt_backend_info info{};
  info.struct_size = sizeof info;
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  json out = {{"name", backend->name}};
  if (omnirt_backend_get_info(backend, &info) == OMNIRT_STATUS_OK) {
    out["plugin_version"] = info.plugin_version;
    out["abi_version"] = version_text(info.abi_version);
  }
  if (omnirt_get_capabilities(backend, &caps) == OMNIRT_STATUS_OK) {
    out["device_type"] = omnirt::tensor::device_type_name(caps.dl_device_type);
  }
  return out;
}

json timeline_json(const omnirt::wrap::TimelineEntry& entry) {
  json attempts = json::array();
  for (const omnirt::wrap::Attempt& a : entry.attempts) {
    attempts.push_back({{"tier", omnirt::tier_name(a.tier)},
                        {"ok", a.ok},
                        {"selected", a.selected},
                        {"status", omnirt_status_name(a.status)},
                        {"reason", a.reason},
                        {"detail", a.detail},
                        {"elapsed_ms", static_cast<double>(a.elapsed_ns) / 1e6}});
  }
  json engine_load = nullptr;
  if (const auto& load = entry.engine_load) {
    engine_load = {{"engine", load->engine},
                   {"ok", load->status == OMNIRT_STATUS_OK},
                   {"status", omnirt_status_name(load->status)},
                   {"reason", load->reason},
                   {"ms", static_cast<double>(load->elapsed_ns) / 1e6}};
  }
  const omnirt::wrap::Attempt* selected = entry.selected();
  return {{"backend", entry.backend},
          {"tag", entry.tag},
          {"device", entry.device},
          {"selected_tier",
           selected != nullptr ? json(omnirt::tier_name(selected->tier)) : json(nullptr)},
          {"wrap_ms", static_cast<double>(entry.elapsed_ns) / 1e6},
          {"engine_load", engine_load},
          {"attempts", attempts}};
}

// Memory statistics sampled now, each field null unless the backend knows it;
// for a backend that runs modules, whether its figures count their memory.
json memory_json(omnirt_backend* backend, int32_t device) {
  json out = {{"device", device}, {"known", json::array()}};
  omnirt_memory_stats stats{};
  stats.struct_size = sizeof stats;
  std::string error;
  // The slot directly, not omnirt_get_memory_stats: rendering a report must
  // not replace the embedder's last error.
  if (!backend->available) {
    error = "backend '" + backend->name + "' is not available: " + backend->unavailable_reason;
  } else if (backend->vtable.memory_stats == nullptr) {
    error = "backend '" + backend->name + "' does not report memory statistics";
  } else {
    omnirt::clear_plugin_error();
    omnirt_status s;
    try {
      s = backend->vtable.memory_stats(backend->state, device, &stats);
    } catch (...) {  // defence in depth, as in call_slot: PLUGIN_RULES 8 forbids it
      s = OMNIRT_STATUS_INTERNAL;
    }
    if (s != OMNIRT_STATUS_OK) {
      const omnirt::PluginError* detail = omnirt::recorded_plugin_error();
      error =
          detail != nullptr && !detail->message.empty() ? detail->message : omnirt_status_name(s);
      stats.known = 0;
    }
  }
  const struct {
    uint32_t bit;
    const char* name;
    uint64_t value;
  } fields[] = {{OMNIRT_STAT_ALLOCATED_BYTES, "allocated_bytes", stats.allocated_bytes},
                {OMNIRT_STAT_PEAK_BYTES, "peak_bytes", stats.peak_bytes},
                {OMNIRT_STAT_RESERVED_BYTES, "reserved_bytes", stats.reserved_bytes},
                {OMNIRT_STAT_ALLOC_COUNT, "alloc_count", stats.alloc_count},
                {OMNIRT_STAT_FREE_COUNT, "free_count", stats.free_count}};
  stats.known &= omnirt::stats_known_to(backend->abi_version);
  for (const auto& f : fields) {
    const bool known = (stats.known & f.bit) != 0;
    out[f.name] = known ? json(f.value) : json(nullptr);
    if (known) out["known"].push_back(f.name);
  }
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  const bool modules = omnirt_get_capabilities(backend, &caps) == OMNIRT_STATUS_OK &&
                       (caps.features & OMNIRT_FEATURE_MODULES) != 0;
  out["module_memory"] = !modules ? json(nullptr)
                         : (stats.known & OMNIRT_STAT_MODULE_MEMORY) != 0 ? json("counted")
                                                                          : json("unknown");
  if (!error.empty()) out["error"] = error;
  return out;
}

}  // namespace

std::string omnirt_report::to_json() {
  std::lock_guard<std::mutex> lock(mutex_);
  json timeline = json::array();
  for (const auto& entry : timeline_) timeline.push_back(timeline_json(entry));

  json stages = json::array();
  Spread wall, device;
  for (const auto& s : stages_) {
    json stage = {{"name", s.name}, {"kind", s.kind}, {"ms", s.ms}};
    if (s.kind == "run") stage["device_ms"] = s.device_ms ? json(*s.device_ms) : json(nullptr);
    stage["ok"] = s.ok;
    if (s.kind != "embedder") stage["tag"] = s.tag;
    stages.push_back(std::move(stage));
    if (s.kind != "run") continue;
    wall.add(s.ms);
    if (s.device_ms) device.add(*s.device_ms);
  }

  json outputs = nullptr;
  if (last_outputs_) {
    json tensors = json::array();
    for (const auto& t : last_outputs_->tensors) {
      tensors.push_back(
          {{"name", t.name}, {"shape", t.shape}, {"dtype", t.dtype}, {"device", t.device}});
    }
    outputs = {{"run", last_outputs_->run}, {"tag", last_outputs_->tag}, {"tensors", tensors}};
  }

  json notes = json::array();
  for (const auto& n : notes_) {
    notes.push_back({{"run", n.run ? json(*n.run) : json(nullptr)},
                     {"tag", n.tag},
                     {"backend", n.backend},
                     {"message", n.message},
                     {"count", n.count}});
  }

  json errors = json::array();
  for (const auto& e : errors_) {
    errors.push_back({{"status", omnirt_status_name(e.status)}, {"message", e.message}});
  }

  const json doc = {
      {"schema_version", kSchemaVersion},
      {"run_id", run_id},
      {"created_at", utc_text(created)},
      {"ok", errors_.empty()},
      {"host",
       {{"library_version", omnirt_library_version()},
        {"abi_version", version_text(omnirt_abi_version())}}},
      {"backend", backend_json(backend)},
      {"timeline", timeline},
      {"stages", stages},
      {"runs",
       {{"count", runs_},
        {"failed", failed_runs_},
        {"total_ms", wall.total(0.0)},
        {"mean_ms", wall.mean(0.0)},
        {"min_ms", wall.min(0.0)},
        {"max_ms", wall.max(0.0)},
        {"device_timed", device.count()},
        {"device_total_ms", device.total()},
        {"device_mean_ms", device.mean()},
        {"device_min_ms", device.min()},
        {"device_max_ms", device.max()}}},
      {"memory", memory_json(backend, device_)},
      {"outputs", outputs},
      {"notes", notes},
      {"errors", errors},
  };
  // Replace, not throw, on invalid UTF-8 in plugin messages.
  return doc.dump(2, ' ', false, json::error_handler_t::replace);
}
