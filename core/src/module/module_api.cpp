// omnirt_module_* (run, timeline access, destroy) and embedder overrides.
#include <memory>
#include <string>

#include "backend.h"
#include "error.h"
#include "host_services.h"
#include "module/module.h"
#include "module/tensor.h"
#include "plugin_call.h"
#include "report/report.h"
#include "sized.h"
#include "stopwatch.h"

using omnirt::fail;
using omnirt::guard_api;
using omnirt::require_non_null;

namespace {

omnirt_status run_module(omnirt_module* module, const DLTensor* inputs, size_t num_inputs,
                         omnirt_stream* stream, DLManagedTensor** outputs, size_t output_capacity,
                         size_t* num_outputs) {
  constexpr const char* kCall = "omnirt_module_run";
  OMNIRT_RETURN_IF_ERROR(require_non_null(module, kCall, "module"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(num_outputs, kCall, "num_outputs"));
  if (outputs == nullptr && output_capacity > 0) {
    return omnirt::null_argument(kCall, "outputs");
  }
  const std::string& backend = module->backend->name;
  if (inputs == nullptr && num_inputs > 0) {
    return fail(OMNIRT_STATUS_INVALID_ARGUMENT, backend,
                "module '{}': inputs is NULL but num_inputs is {}", module->timeline.tag,
                num_inputs);
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    if (auto problem = omnirt::tensor::check(inputs[i], i, "input", module->input_device)) {
      return fail(OMNIRT_STATUS_INVALID_ARGUMENT, backend, "module '{}': {}", module->timeline.tag,
                  *problem);
    }
  }
  *num_outputs = 0;
  return module->runner->run(inputs, num_inputs, stream, outputs, output_capacity, num_outputs);
}

// A run given a report: it returns once the run's work has completed, and the
// report records its wall time to completion and, where the backend can time
// events on the stream, its device time (docs/run-report.md). A failed wait
// fails the run: its outputs are released, since they may never be written.
omnirt_status run_and_report(omnirt_module* module, const DLTensor* inputs, size_t num_inputs,
                             omnirt_stream* stream, DLManagedTensor** outputs,
                             size_t output_capacity, size_t* num_outputs, omnirt_report* report) {
  const omnirt::Stopwatch call;
  const omnirt::PluginNotes notes;  // what the plugin warns of meanwhile, for the report
  std::unique_ptr<omnirt::CompletionTimer> timer;
  omnirt_status status = module->timers.take(module->backend, module->timeline.device, &timer);
  if (status == OMNIRT_STATUS_OK) status = timer->begin(stream);
  if (status == OMNIRT_STATUS_OK) {
    status = run_module(module, inputs, num_inputs, stream, outputs, output_capacity, num_outputs);
  }
  omnirt::CompletedTime time;
  if (status == OMNIRT_STATUS_OK) {
    status = timer->end(&time);
    if (status != OMNIRT_STATUS_OK) {
      for (size_t i = 0; i < *num_outputs; ++i) outputs[i]->deleter(outputs[i]);
      *num_outputs = 0;
    }
  }
  if (timer != nullptr) module->timers.give_back(std::move(timer));
  const bool ok = status == OMNIRT_STATUS_OK;
  if (!ok) time = {static_cast<double>(call.elapsed_ns()) / 1e6, std::nullopt};
  for (const omnirt::PluginNote& n : notes.notes()) {
    report->add_note(module->timeline.tag, n.backend, n.message, omnirt::report::During::kRun);
  }
  std::vector<std::string> names;
  for (size_t i = 0; ok && i < *num_outputs; ++i) {
    const char* name = "";
    // A backend that cannot name an output leaves it unnamed in the report.
    names.emplace_back(module->runner->output_name(outputs[i], &name) == OMNIRT_STATUS_OK ? name : "");
  }
  report->add_run(module->timeline.tag, time, status, ok ? outputs : nullptr, names);
  if (!ok) report->add_error(status, omnirt_last_error()->message);
  return status;
}

}  // namespace

extern "C" {

void omnirt_module_destroy(omnirt_module* module) {
  // A plugin must not throw (rule 8); if its executable_destroy does, the
  // embedder still must not see it.
  try {
    delete module;
  } catch (...) {
  }
}

omnirt_status omnirt_module_output_name(const omnirt_module* module, const DLManagedTensor* output,
                                        const char** name) {
  constexpr const char* kCall = "omnirt_module_output_name";
  return guard_api(kCall, [&]() -> omnirt_status {
    OMNIRT_RETURN_IF_ERROR(require_non_null(module, kCall, "module"));
    OMNIRT_RETURN_IF_ERROR(require_non_null(output, kCall, "output"));
    OMNIRT_RETURN_IF_ERROR(require_non_null(name, kCall, "name"));
    return module->runner->output_name(output, name);
  });
}

size_t omnirt_module_attempt_count(const omnirt_module* module) {
  return module != nullptr ? module->timeline.attempts.size() : 0;
}

omnirt_status omnirt_module_get_attempt(const omnirt_module* module, size_t index,
                                        omnirt_attempt* out) {
  constexpr const char* kCall = "omnirt_module_get_attempt";
  OMNIRT_RETURN_IF_ERROR(require_non_null(module, kCall, "module"));
  const auto& attempts = module->timeline.attempts;
  if (index >= attempts.size()) {
    return fail(OMNIRT_STATUS_OUT_OF_RANGE, {}, "{}: index {} is out of range (there are {})",
                kCall, index, attempts.size());
  }
  const omnirt::wrap::Attempt& a = attempts[index];
  auto full = omnirt::sized_struct<omnirt_attempt>();
  full.tier = a.tier;
  full.ok = a.ok ? 1 : 0;
  full.selected = a.selected ? 1 : 0;
  full.status = a.status;
  full.reason = a.reason.c_str();
  full.elapsed_ns = a.elapsed_ns;
  return omnirt::write_sized(out, full, kCall, "omnirt_attempt");
}

omnirt_status omnirt_module_run(omnirt_module* module, const DLTensor* inputs, size_t num_inputs,
                                omnirt_stream* stream, DLManagedTensor** outputs,
                                size_t output_capacity, size_t* num_outputs,
                                omnirt_report* report) {
  return guard_api("omnirt_module_run", [&] {
    if (report != nullptr && module != nullptr) {
      return run_and_report(module, inputs, num_inputs, stream, outputs, output_capacity,
                            num_outputs, report);
    }
    return run_module(module, inputs, num_inputs, stream, outputs, output_capacity, num_outputs);
  });
}

omnirt_status omnirt_register_override(omnirt_backend* backend, const char* tag,
                                       omnirt_override_fn fn, void* user_data) {
  constexpr const char* kCall = "omnirt_register_override";
  return guard_api(kCall, [&]() -> omnirt_status {
    OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
    OMNIRT_RETURN_IF_ERROR(require_non_null(tag, kCall, "tag"));
    OMNIRT_RETURN_IF_ERROR(require_non_null(reinterpret_cast<const void*>(fn), kCall, "fn"));
    if (*tag == '\0') return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: tag is empty", kCall);
    if (!backend->overrides.add(tag, {fn, user_data})) {
      return fail(OMNIRT_STATUS_ALREADY_EXISTS, backend->name,
                  "backend '{}' already has an embedder override for tag '{}'", backend->name, tag);
    }
    return OMNIRT_STATUS_OK;
  });
}

omnirt_status omnirt_unregister_override(omnirt_backend* backend, const char* tag) {
  constexpr const char* kCall = "omnirt_unregister_override";
  return guard_api(kCall, [&]() -> omnirt_status {
    OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
    OMNIRT_RETURN_IF_ERROR(require_non_null(tag, kCall, "tag"));
    if (!backend->overrides.remove(tag)) {
      return fail(OMNIRT_STATUS_NOT_FOUND, backend->name,
                  "backend '{}' has no embedder override for tag '{}'", backend->name, tag);
    }
    return OMNIRT_STATUS_OK;
  });
}

}  // extern "C"
