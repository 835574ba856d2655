// omnirt_wrap_module: tries the tiers in policy order and keeps the first
// that works, recording every attempt.
#include <optional>
#include <string>

#include "error.h"
#include "host.h"
#include "module/engine_load.h"
#include "module/module.h"
#include "module/policy.h"
#include "module/runners.h"
#include "module/tensor.h"
#include "omnirt/cpp/host.hpp"
#include "ops/op_runner.h"
#include "plugin_call.h"
#include "report/report.h"
#include "stopwatch.h"

namespace omnirt::wrap {
namespace {

using V = omnirt_backend_vtable;

// One wrap_module call. attempt() runs one tier and, on success, leaves its
// runner in `runner`.
struct Wrap {
  omnirt_backend& backend;
  const omnirt_module_source& source;
  const std::string& tag;
  int32_t device;
  const omnirt_wrap_options* options;
  const omnirt_capabilities& caps;
  std::unique_ptr<Runner> runner;

  static void failed(Attempt& a, omnirt_status status, std::string reason) {
    a.status = status;
    a.reason = std::move(reason);
  }

  std::string accepted_formats() const {
    std::string list;
    for (size_t i = 0; i < caps.num_module_formats; ++i) {
      list += (i > 0 ? ", " : "") + std::string(caps.module_formats[i]);
    }
    return list.empty() ? "none" : list;
  }

  bool accepts_format() const {
    for (size_t i = 0; i < caps.num_module_formats; ++i) {
      if (std::string(caps.module_formats[i]) == source.format) return true;
    }
    return false;
  }

  // Why the backend cannot load the source's format here, if it says; else nullptr.
  const char* format_unavailable_reason() const {
    for (size_t i = 0; i < caps.num_unavailable_module_formats; ++i) {
      const omnirt_module_format_unavailable& u = caps.unavailable_module_formats[i];
      if (u.format != nullptr && u.reason != nullptr && std::string(u.format) == source.format) {
        return u.reason;
      }
    }
    return nullptr;
  }

  void try_load(omnirt_tier tier, Attempt& a) {
    if (backend.vtable.module_load == nullptr || backend.vtable.executable_run == nullptr) {
      return failed(a, OMNIRT_STATUS_NOT_SUPPORTED,
                    "backend '" + backend.name + "' does not load modules");
    }
    if (tier == OMNIRT_TIER_COMPILE && (caps.features & OMNIRT_FEATURE_COMPILE) == 0) {
      return failed(a, OMNIRT_STATUS_NOT_SUPPORTED,
                    "backend '" + backend.name + "' has no compile tier");
    }
    if (!accepts_format()) {
      if (const char* reason = format_unavailable_reason()) {
        return failed(a, OMNIRT_STATUS_NOT_SUPPORTED,
                      "backend '" + backend.name + "' cannot load module format '" +
                          source.format + "' here: " + reason);
      }
      return failed(a, OMNIRT_STATUS_NOT_SUPPORTED,
                    "backend '" + backend.name + "' does not accept module format '" +
                        source.format + "' (accepts: " + accepted_formats() + ")");
    }
    omnirt_executable* executable = nullptr;
    const omnirt_status status = call_slot<&V::module_load>(
        backend, "module_load", device, &source, static_cast<int32_t>(tier),
        tag.empty() ? nullptr : tag.c_str(), &executable);
    if (status != OMNIRT_STATUS_OK) return failed(a, status, omnirt_last_error()->message);
    if (executable == nullptr) {  // a broken plugin must not become a selected tier
      return failed(a, OMNIRT_STATUS_INTERNAL,
                    "backend '" + backend.name + "' returned OK from module_load but no executable");
    }
    a.ok = true;
    runner = make_executable_runner(backend, executable,
                                    (caps.features & OMNIRT_FEATURE_OUTPUT_NAMES) != 0);
  }

  void try_override(Attempt& a) {
    if (tag.empty()) {
      return failed(a, OMNIRT_STATUS_NOT_FOUND, "no tag given, so no override applies");
    }
    if (auto entry = backend.overrides.find(tag)) {
      a.ok = true;
      a.detail = "embedder override";
      runner = make_override_runner(backend, *entry, tag);
      return;
    }
    const std::string non_host = tensor::is_host_memory(caps.dl_device_type)
                                     ? ""
                                     : "backend '" + backend.name + "' keeps tensors in " +
                                           tensor::device_type_name(caps.dl_device_type) +
                                           " memory";
    std::string why;
    const auto lookup = ops::find(backend, tag, non_host, &why);
    if (!lookup) {
      return failed(a, OMNIRT_STATUS_NOT_FOUND,
                    "no embedder override for tag '" + tag + "', and " + why);
    }
    a.ok = true;
    a.detail = "op '" + tag + "' of backend '" + lookup->implementer->name + "'" +
               (lookup->base ? " (base implementation)" : "");
    runner = ops::make_op_runner(backend, device, *lookup, tag,
                                 options != nullptr ? options->attrs : nullptr,
                                 options != nullptr ? options->num_attrs : 0);
  }

  // Whether trying `tier` hands the module to the backend's engine.
  bool needs_engine(omnirt_tier tier, const std::string& compile_disabled_by) const {
    if (tier == OMNIRT_TIER_OVERRIDE || backend.vtable.module_load == nullptr || !accepts_format()) {
      return false;
    }
    return tier == OMNIRT_TIER_EAGER ||
           (compile_disabled_by.empty() && (caps.features & OMNIRT_FEATURE_COMPILE) != 0);
  }

  Attempt attempt(omnirt_tier tier, const std::string& compile_disabled_by) {
    Attempt a;
    a.tier = tier;
    const Stopwatch watch;
    if (tier == OMNIRT_TIER_COMPILE && !compile_disabled_by.empty()) {
      failed(a, OMNIRT_STATUS_UNAVAILABLE, compile_disabled_by);
    } else if (tier == OMNIRT_TIER_OVERRIDE) {
      try_override(a);
    } else {
      try_load(tier, a);
    }
    a.elapsed_ns = watch.elapsed_ns();
    return a;
  }
};

// "wrap_module (tag 'x') on backend 'y' failed in every tier: compile: ...; ..."
std::string failure_message(const TimelineEntry& entry) {
  std::string m = "wrap_module (tag '" + entry.tag + "') on backend '" + entry.backend +
                  "' failed in every tier: ";
  for (size_t i = 0; i < entry.attempts.size(); ++i) {
    const Attempt& a = entry.attempts[i];
    m += (i > 0 ? "; " : "") + std::string(omnirt::tier_name(a.tier)) + ": " +
         omnirt_status_name(a.status) + " (" + a.reason + ")";
  }
  return m;
}

omnirt_status check_arguments(omnirt_backend* backend, const omnirt_module_source* source,
                              const omnirt_wrap_options* options, omnirt_module** module) {
  constexpr const char* kCall = "omnirt_wrap_module";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(source, kCall, "source"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(module, kCall, "module"));
  if (source->struct_size < sizeof(omnirt_module_source)) {
    return fail(OMNIRT_STATUS_INCOMPATIBLE, {}, "{}: source->struct_size is {}; set it to {}",
                kCall, source->struct_size, sizeof(omnirt_module_source));
  }
  OMNIRT_RETURN_IF_ERROR(require_non_null(source->format, kCall, "source->format"));
  const bool has_data = source->data != nullptr;
  if (has_data == (source->path != nullptr) || (has_data && source->size == 0)) {
    return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {},
                "{}: set exactly one of source->data (with size > 0) and source->path", kCall);
  }
  if (options != nullptr) {
    if (options->struct_size < sizeof(omnirt_wrap_options)) {
      return fail(OMNIRT_STATUS_INCOMPATIBLE, {}, "{}: options->struct_size is {}; set it to {}",
                  kCall, options->struct_size, sizeof(omnirt_wrap_options));
    }
    if (options->attrs == nullptr && options->num_attrs > 0) {
      return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {},
                  "{}: options->attrs is NULL but num_attrs is {}", kCall, options->num_attrs);
    }
  }
  return OMNIRT_STATUS_OK;
}

omnirt_status wrap_module(omnirt_backend* backend, const omnirt_module_source* source,
                          const char* tag, const omnirt_wrap_options* options,
                          omnirt_report* report, omnirt_module** module) {
  const Stopwatch watch;
  OMNIRT_RETURN_IF_ERROR(check_arguments(backend, source, options, module));
  *module = nullptr;
  const int32_t device = options != nullptr ? options->device : 0;
  OMNIRT_RETURN_IF_ERROR(require_device(*backend, device, "omnirt_wrap_module"));
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  OMNIRT_RETURN_IF_ERROR(omnirt_get_capabilities(backend, &caps));

  auto result = std::make_unique<omnirt_module>();
  result->backend = backend;
  result->input_device = DLDevice{static_cast<DLDeviceType>(caps.dl_device_type), device};
  TimelineEntry& entry = result->timeline;
  entry.backend = backend->name;
  entry.tag = tag != nullptr ? tag : "";
  entry.device = device;

  const TierPlan tiers =
      plan(backend->host->config.wrap_module, entry.tag, options != nullptr ? options->flags : 0);
  Wrap w{*backend, *source, entry.tag, device, options, caps, nullptr};
  const bool can_prepare = (caps.features & OMNIRT_FEATURE_ENGINE_PREPARE) != 0;
  for (omnirt_tier tier : tiers.order) {
    if (can_prepare && !entry.engine_load && w.needs_engine(tier, tiers.compile_disabled_by)) {
      entry.engine_load = load_engine(*backend, source->format);
    }
    entry.attempts.push_back(w.attempt(tier, tiers.compile_disabled_by));
    if (entry.attempts.back().ok) {
      entry.attempts.back().selected = true;
      break;
    }
  }
  entry.elapsed_ns = watch.elapsed_ns();
  if (report != nullptr) report->add_timeline(entry);

  // Configuration guarantees a non-empty policy, so there is a last attempt.
  if (entry.selected() == nullptr) {
    return record_error(entry.attempts.back().status, failure_message(entry), backend->name);
  }
  result->runner = std::move(w.runner);
  *module = result.release();
  return OMNIRT_STATUS_OK;
}

}  // namespace
}  // namespace omnirt::wrap

extern "C" omnirt_status omnirt_wrap_module(omnirt_backend* backend,
                                            const omnirt_module_source* source, const char* tag,
                                            const omnirt_wrap_options* options,
                                            omnirt_report* report, omnirt_module** module) {
  return omnirt::guard_api("omnirt_wrap_module", [&] {
    // What the plugin warns of meanwhile goes into the report, when there is one.
    std::optional<omnirt::PluginNotes> notes;
    if (report != nullptr) notes.emplace();
    const omnirt_status status =
        omnirt::wrap::wrap_module(backend, source, tag, options, report, module);
    if (notes) {
      for (const omnirt::PluginNote& n : notes->notes()) {
        report->add_note(tag != nullptr ? tag : "", n.backend, n.message,
                         omnirt::report::During::kWrap);
      }
    }
    if (status != OMNIRT_STATUS_OK && report != nullptr) {
      report->add_error(status, omnirt_last_error()->message);
    }
    return status;
  });
}
