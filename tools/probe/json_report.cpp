// The JSON form of a probe report. Schema version 1; keys are only added
// within a version, and a removal or change of meaning bumps it.
#include "names.h"
#include "probe_report.h"

namespace omnirt_probe {
namespace {

using Json = nlohmann::ordered_json;

Json device_json(const Device& d) {
  return Json{{"index", d.index},
              {"name", d.name},
              {"arch", d.arch},
              {"compute_units", d.compute_units},
              {"total_memory_bytes", d.total_bytes},
              {"free_memory_bytes", d.free_bytes ? Json(*d.free_bytes) : Json(nullptr)}};
}

Json backend_json(const Backend& b) {
  Json op_sets = Json::array();
  for (const auto& [name, version] : b.op_sets) op_sets.push_back({{"name", name}, {"version", version}});
  Json devices = Json::array();
  for (const Device& d : b.devices) devices.push_back(device_json(d));
  Json unavailable_formats = Json::array();
  for (const auto& [format, reason] : b.unavailable_module_formats) {
    unavailable_formats.push_back({{"format", format}, {"reason", reason}});
  }
  return Json{{"name", b.name},
              {"plugin_version", b.plugin_version},
              {"abi_version", version_string(b.abi_version)},
              {"path", b.path},
              {"priority", b.priority},
              {"available", b.available},
              {"unavailable_reason", b.unavailable_reason},
              {"load_time_ns", b.load_time_ns},
              {"capabilities",
               {{"vendor", b.vendor},
                {"dl_device_type", device_type_name(b.dl_device_type)},
                {"device_count", b.device_count},
                {"features", feature_names(b.features)},
                {"dtypes", dtype_names(b.dtypes)},
                {"module_formats", b.module_formats},
                {"unavailable_module_formats", unavailable_formats},
                {"op_sets", op_sets}}},
              {"devices", devices},
              {"collectives",
               {{"library", b.collectives_library ? Json(*b.collectives_library) : Json(nullptr)},
                {"reason", b.collectives_reason}}},
              {"errors", b.errors}};
}

Json candidate_json(const Candidate& c) {
  return Json{{"path", c.path},
              {"real_path", c.real_path},
              {"source", source_name(c.source)},
              {"stage", omnirt_load_stage_name(c.stage)},
              {"loaded", c.loaded},
              {"skipped", c.skipped},
              {"status", omnirt_status_name(c.status)},
              {"reason", c.reason},
              {"backend_name", c.backend_name},
              {"abi_version", c.abi_version != 0 ? Json(version_string(c.abi_version)) : Json(nullptr)},
              {"load_time_ns", c.load_time_ns},
              {"vetting", vet_outcome_name(c.vet_outcome)},
              {"vet_cached", c.vet_cached},
              {"vet_time_ns", c.vet_time_ns}};
}

}  // namespace

nlohmann::ordered_json to_json(const ProbeReport& report) {
  Json search_path = Json::array();
  for (const SearchDir& d : report.search_path) {
    search_path.push_back(
        {{"path", d.path}, {"source", source_name(d.source)}, {"searched", d.searched}, {"note", d.note}});
  }
  Json backends = Json::array();
  for (const Backend& b : report.backends) backends.push_back(backend_json(b));
  Json candidates = Json::array();
  for (const Candidate& c : report.candidates) candidates.push_back(candidate_json(c));
  return Json{{"schema_version", 1},
              {"library_version", report.library_version},
              {"abi_version", version_string(report.abi_version)},
              {"host_create_ns", report.host_create_ns},
              {"available_backends", report.available_count()},
              {"search_path", search_path},
              {"backends", backends},
              {"candidates", candidates}};
}

}  // namespace omnirt_probe
