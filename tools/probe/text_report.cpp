// The readable form of a probe report: summary line, backends, their devices
// and capabilities, rejected and skipped files; with --verbose, the search
// path and every candidate's load time. Tables fit the given width by
// wrapping reasons and shortening paths.
#include <cstdio>
#include <string>

#include "names.h"
#include "probe_report.h"
#include "table.h"

namespace omnirt_probe {
namespace {

std::string join(const std::vector<std::string>& words) {
  if (words.empty()) return "(none)";
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

std::string milliseconds(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", static_cast<double>(ns) / 1e6);
  return text;
}

bool rejected(const Candidate& c) { return !c.loaded && !c.skipped; }

void print_summary(const ProbeReport& report, size_t width, std::ostream& out) {
  size_t rejected_files = 0, skipped_files = 0;
  for (const Candidate& c : report.candidates) {
    rejected_files += rejected(c) ? 1 : 0;
    skipped_files += c.skipped ? 1 : 0;
  }
  const std::string summary =
      "OmniRT " + report.library_version + " (ABI " + version_string(report.abi_version) + "): " +
      std::to_string(report.available_count()) + " of " + std::to_string(report.backends.size()) +
      " backend(s) available, " + std::to_string(rejected_files) + " file(s) rejected, " +
      std::to_string(skipped_files) + " skipped; host created in " +
      milliseconds(report.host_create_ns);
  for (const std::string& line : wrap(summary, width)) out << line << "\n";
}

void print_backends(const ProbeReport& report, size_t width, std::ostream& out) {
  out << "\nBackends (in selection order):\n";
  if (report.backends.empty()) {
    out << "  (none loaded)\n";
    return;
  }
  Table table({"NAME", "PLUGIN", "ABI", "PRIORITY", {"STATE", Fit::kWrap}, {"PATH", Fit::kWrap}});
  for (const Backend& b : report.backends) {
    table.add_row({b.name, b.plugin_version, version_string(b.abi_version), std::to_string(b.priority),
                   b.available ? "available" : "unavailable: " + b.unavailable_reason, b.path});
  }
  table.print(out, width);
}

void print_details(const Backend& b, size_t width, std::ostream& out) {
  out << "\n" << b.name << ": vendor " << (b.vendor.empty() ? "?" : b.vendor) << ", "
      << device_type_name(b.dl_device_type) << " memory, " << b.device_count << " device(s)\n";
  if (!b.devices.empty()) {
    Table devices({"DEVICE", {"NAME", Fit::kWrap}, "ARCH", "UNITS", "MEMORY (FREE / TOTAL)"});
    for (const Device& d : b.devices) {
      const std::string free_text = d.free_bytes ? bytes_string(*d.free_bytes) : "?";
      devices.add_row({std::to_string(d.index), d.name, d.arch, std::to_string(d.compute_units),
                       free_text + " / " + bytes_string(d.total_bytes)});
    }
    devices.print(out, width);
  }
  std::vector<std::string> op_sets;
  for (const auto& [name, version] : b.op_sets) op_sets.push_back(name + " v" + std::to_string(version));
  Table capabilities({"CAPABILITY", {"VALUES", Fit::kWrap}});
  capabilities.add_row({"features", join(feature_names(b.features))});
  capabilities.add_row({"dtypes", join(dtype_names(b.dtypes))});
  capabilities.add_row({"module formats", join(b.module_formats)});
  for (const auto& [format, reason] : b.unavailable_module_formats) {
    capabilities.add_row({"not loadable", format + ": " + reason});
  }
  capabilities.add_row({"op sets", join(op_sets)});
  if (b.available) {
    capabilities.add_row({"collectives", b.collectives_library ? *b.collectives_library : "(none: " + b.collectives_reason + ")"});
  }
  for (const std::string& error : b.errors) capabilities.add_row({"error", error});
  capabilities.print(out, width);
}

void print_rejected(const ProbeReport& report, size_t width, std::ostream& out) {
  Table table({{"PATH", Fit::kWrap}, "REACHED", "STATUS", {"REASON", Fit::kWrap}});
  size_t rows = 0;
  for (const Candidate& c : report.candidates) {
    if (!rejected(c)) continue;
    table.add_row({c.path, omnirt_load_stage_name(c.stage), omnirt_status_name(c.status), c.reason});
    ++rows;
  }
  out << "\nRejected files:\n";
  if (rows == 0) {
    out << "  (none)\n";
    return;
  }
  table.print(out, width);
}

// Files left alone by choice (a second copy, the allow/deny lists, a backend
// already loaded): listed apart from the broken ones, shown only when there are some.
void print_skipped(const ProbeReport& report, size_t width, std::ostream& out) {
  Table table({{"PATH", Fit::kWrap}, {"WHY", Fit::kWrap}});
  size_t rows = 0;
  for (const Candidate& c : report.candidates) {
    if (!c.skipped) continue;
    table.add_row({c.path, c.reason});
    ++rows;
  }
  if (rows == 0) return;
  out << "\nSkipped files:\n";
  table.print(out, width);
}

void print_search_path(const ProbeReport& report, std::ostream& out) {
  out << "\nSearch path (in order):\n";
  Table table({"#", "SOURCE", "SEARCHED", "PATH", "NOTE"});
  for (size_t i = 0; i < report.search_path.size(); ++i) {
    const SearchDir& d = report.search_path[i];
    table.add_row({std::to_string(i), source_name(d.source), d.searched ? "yes" : "no",
                   d.path.empty() ? "-" : d.path, d.note});
  }
  table.print(out);
}

void print_candidates(const ProbeReport& report, std::ostream& out) {
  out << "\nCandidates (in search order):\n";
  if (report.candidates.empty()) {
    out << "  (none)\n";
    return;
  }
  Table table({"PATH", "SOURCE", "BACKEND", "ABI", "REACHED", "STATUS", "LOAD TIME", "VETTING"});
  for (const Candidate& c : report.candidates) {
    std::string vetting = vet_outcome_name(c.vet_outcome);
    if (c.vet_outcome != OMNIRT_VET_NOT_VETTED) {
      vetting += c.vet_cached ? " (cached)" : " in " + milliseconds(c.vet_time_ns);
    }
    table.add_row({c.path, source_name(c.source), c.backend_name.empty() ? "-" : c.backend_name,
                   c.abi_version != 0 ? version_string(c.abi_version) : "-", omnirt_load_stage_name(c.stage),
                   omnirt_status_name(c.status), milliseconds(c.load_time_ns), vetting});
  }
  table.print(out);
}

}  // namespace

void print_text(const ProbeReport& report, bool verbose, size_t width, std::ostream& out) {
  if (verbose) width = 0;  // every text in full
  print_summary(report, width, out);
  if (verbose) print_search_path(report, out);
  print_backends(report, width, out);
  for (const Backend& backend : report.backends) print_details(backend, width, out);
  print_rejected(report, width, out);
  print_skipped(report, width, out);
  if (verbose) print_candidates(report, out);
}

}  // namespace omnirt_probe
