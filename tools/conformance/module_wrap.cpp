#include "module_wrap.hpp"

#include <nlohmann/json.hpp>

#include <cstring>

namespace omnirt::conformance {
namespace {

constexpr char kCorrupt[] = "not a module: omnirt-conformance";

omnirt_status status_named(const std::string& name) {
  for (omnirt_status s = OMNIRT_STATUS_OK; s <= OMNIRT_STATUS_TIMEOUT; ++s) {
    if (name == omnirt_status_name(s)) return s;
  }
  return OMNIRT_STATUS_INTERNAL;
}

// Fills out->attempts from the report's last timeline entry.
void read_timeline(omnirt_report* report, Wrapped* out) {
  char* text = nullptr;
  if (omnirt_report_to_json(report, &text) != OMNIRT_STATUS_OK) {
    out->problem = std::string("omnirt_report_to_json failed: ") + omnirt_last_error()->message;
    return;
  }
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  omnirt_string_free(text);
  if (!doc.is_object() || !doc["timeline"].is_array() || doc["timeline"].empty()) {
    out->problem = "the run report has no timeline entry for the call";
    return;
  }
  for (const nlohmann::json& a : doc["timeline"].back().value("attempts", nlohmann::json::array())) {
    out->attempts.push_back({a.value("tier", ""), status_named(a.value("status", "")),
                             a.value("ok", false), a.value("selected", false),
                             a.value("reason", "")});
  }
}

}  // namespace

const WrapAttempt* Wrapped::attempt(const std::string& tier) const {
  for (const WrapAttempt& a : attempts) {
    if (a.tier == tier) return &a;
  }
  return nullptr;
}

omnirt_module_source corrupt_module(const char* format) {
  omnirt_module_source source;
  std::memset(&source, 0, sizeof source);
  source.struct_size = sizeof source;
  source.format = format;
  source.data = kCorrupt;
  source.size = sizeof kCorrupt;
  return source;
}

void wrap(omnirt_backend* backend, const omnirt_module_source& source, const char* tag,
          uint32_t flags, Wrapped* out) {
  omnirt_report* report = nullptr;
  if (omnirt_report_create(backend, "omnirt-conformance", &report) != OMNIRT_STATUS_OK) {
    out->problem = std::string("omnirt_report_create failed: ") + omnirt_last_error()->message;
    return;
  }
  omnirt_wrap_options options;
  std::memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  options.flags = flags;
  out->status = omnirt_wrap_module(backend, &source, tag, &options, report, &out->module);
  if (out->status != OMNIRT_STATUS_OK) out->message = omnirt_last_error()->message;
  read_timeline(report, out);
  omnirt_report_destroy(report);
}

}  // namespace omnirt::conformance
