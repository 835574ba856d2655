// omnirt_report_* and omnirt_string_free.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "error.h"
#include "plugin_call.h"
#include "report/report.h"

using omnirt::fail;
using omnirt::guard_api;
using omnirt::require_non_null;

namespace {

std::string make_run_id() {
  std::random_device seed;
  std::mt19937_64 bits((static_cast<uint64_t>(seed()) << 32) ^ seed());
  char text[24];
  std::snprintf(text, sizeof text, "run-%016llx", static_cast<unsigned long long>(bits()));
  return text;
}

}  // namespace

extern "C" {

omnirt_status omnirt_report_create(omnirt_backend* backend, const char* run_id,
                                   omnirt_report** report) {
  return guard_api("omnirt_report_create", [&]() -> omnirt_status {
    OMNIRT_RETURN_IF_ERROR(require_non_null(backend, "omnirt_report_create", "backend"));
    OMNIRT_RETURN_IF_ERROR(require_non_null(report, "omnirt_report_create", "report"));
    *report = new omnirt_report(backend, run_id != nullptr ? run_id : make_run_id());
    return OMNIRT_STATUS_OK;
  });
}

void omnirt_report_destroy(omnirt_report* report) { delete report; }

omnirt_status omnirt_report_add_stage(omnirt_report* report, const char* name,
                                      double milliseconds) {
  return guard_api("omnirt_report_add_stage", [&]() -> omnirt_status {
    OMNIRT_RETURN_IF_ERROR(require_non_null(report, "omnirt_report_add_stage", "report"));
    OMNIRT_RETURN_IF_ERROR(require_non_null(name, "omnirt_report_add_stage", "name"));
    if (!(milliseconds >= 0)) {
      return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {},
                  "omnirt_report_add_stage: stage '{}' has a negative or NaN time", name);
    }
    report->add_stage(name, milliseconds);
    return OMNIRT_STATUS_OK;
  });
}

omnirt_status omnirt_report_add_error(omnirt_report* report, omnirt_status status,
                                      const char* message) {
  return guard_api("omnirt_report_add_error", [&]() -> omnirt_status {
    OMNIRT_RETURN_IF_ERROR(require_non_null(report, "omnirt_report_add_error", "report"));
    report->add_error(status, message != nullptr ? message : "");
    return OMNIRT_STATUS_OK;
  });
}

omnirt_status omnirt_report_to_json(omnirt_report* report, char** json) {
  return guard_api("omnirt_report_to_json", [&]() -> omnirt_status {
    OMNIRT_RETURN_IF_ERROR(require_non_null(report, "omnirt_report_to_json", "report"));
    OMNIRT_RETURN_IF_ERROR(require_non_null(json, "omnirt_report_to_json", "json"));
    const std::string text = report->to_json();
    // malloc, so that omnirt_string_free is a plain free whatever made the string.
    char* copy = static_cast<char*>(std::malloc(text.size() + 1));
    if (copy == nullptr) {
      return fail(OMNIRT_STATUS_OUT_OF_MEMORY, {}, "omnirt_report_to_json: out of host memory");
    }
    std::memcpy(copy, text.c_str(), text.size() + 1);
    *json = copy;
    return OMNIRT_STATUS_OK;
  });
}

void omnirt_string_free(char* str) { std::free(str); }

}  // extern "C"
