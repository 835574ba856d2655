#include "summary.h"

#include <iomanip>

#include "latency.h"

namespace omnirt::run {
namespace {

std::string ms_text(double ms) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(ms < 1 ? 3 : 2) << ms << " ms";
  return s.str();
}

std::string spread_text(const std::vector<double>& samples) {
  const Latency l = summarize(samples);
  return std::to_string(samples.size()) + (samples.size() == 1 ? " iteration" : " iterations") +
         ": median " + ms_text(l.median_ms) +
         ", p90 " + ms_text(l.p90_ms) + ", mean " + ms_text(l.mean_ms) + " (min " +
         ms_text(l.min_ms) + ", max " + ms_text(l.max_ms) + ")";
}

std::string shape_of(const nlohmann::ordered_json& shape) {
  std::string text;
  for (const auto& d : shape) text += (text.empty() ? "" : "x") + std::to_string(d.get<int64_t>());
  return text.empty() ? "scalar" : text;
}

}  // namespace

void print_summary(std::ostream& out, const nlohmann::ordered_json& r, const RunTimes& times,
                   const SummaryContext& context) {
  const auto& b = r["backend"];
  out << "backend  " << b.value("name", "?") << " (plugin " << b.value("plugin_version", "?")
      << ", ABI " << b.value("abi_version", "?") << ")   run " << r.value("run_id", "?") << "\n";
  for (const auto& entry : r["timeline"]) {
    const auto& selected = entry["selected_tier"];
    out << "wrap     '" << entry.value("tag", "") << "' -> "
        << (selected.is_null() ? std::string("FAILED") : selected.get<std::string>() + " tier")
        << " in " << ms_text(entry.value("wrap_ms", 0.0)) << "\n";
    if (const auto& load = entry["engine_load"]; load.is_object()) {
      out << "  " << std::left << std::setw(9) << "engine" << std::setw(17)
          << (load.value("ok", false) ? "loaded" : load.value("status", "")) << std::right
          << std::setw(12) << ms_text(load.value("ms", 0.0)) << "  "
          << (load.value("ok", false) ? load.value("engine", "") : load.value("reason", "")) << "\n";
    }
    for (const auto& a : entry["attempts"]) {
      out << "  " << std::left << std::setw(9) << a.value("tier", "") << std::setw(17)
          << (a.value("selected", false) ? "ok, selected" : a.value("status", "")) << std::right
          << std::setw(12) << ms_text(a.value("elapsed_ms", 0.0));
      std::string note = a.value("ok", false) ? a.value("detail", "") : a.value("reason", "");
      // --no-compile is the most specific switch: the host named the flag it set.
      if (context.no_compile && a.value("tier", "") == "compile") note = "skipped (--no-compile)";
      if (!note.empty()) out << "  " << note;
      out << "\n";
    }
  }
  if (!times.wall_ms.empty()) {
    out << "latency  " << spread_text(times.wall_ms) << ", wall time to completion\n";
    if (!times.device_ms.empty()) {
      out << "device   " << spread_text(times.device_ms) << ", between events on the run's stream\n";
    } else {
      out << "device   not timed: the backend cannot time events on the run's stream\n";
    }
  }
  if (r["outputs"].is_object()) {
    for (const auto& t : r["outputs"]["tensors"]) {
      const std::string name = t.value("name", "");
      out << "output   " << (name.empty() ? "" : "'" + name + "' ") << shape_of(t["shape"]) << " "
          << t.value("dtype", "") << " on " << t.value("device", "") << "\n";
    }
  }
  const auto& memory = r["memory"];
  out << "memory   device " << memory.value("device", 0) << ":";
  if (memory["known"].empty()) out << " not reported";
  for (const auto& name : memory["known"]) {
    out << " " << name.get<std::string>() << "=" << memory[name.get<std::string>()].get<uint64_t>();
  }
  if (memory.contains("error")) out << " (" << memory["error"].get<std::string>() << ")";
  if (memory.value("module_memory", "") == "unknown") {
    out << "; the model's own memory is unknown (this backend's figures leave out what its "
           "engine allocates)";
  }
  out << "\n";
  for (const auto& n : r.contains("notes") ? r["notes"] : nlohmann::ordered_json::array()) {
    const uint64_t count = n.value("count", uint64_t{1});
    out << "note     [" << n.value("backend", "") << "] " << n.value("message", "")
        << (count > 1 ? " (" + std::to_string(count) + " times)" : "") << "\n";
  }
  for (const auto& e : r["errors"]) {
    out << "error    " << e.value("status", "") << ": " << e.value("message", "") << "\n";
  }
}

}  // namespace omnirt::run
