// InstanceState::execute: the requests of one TRITONBACKEND_ModelInstanceExecute
// call, checked, batched, run and answered.
#include <algorithm>

#include "instance_state.h"
#include "responses.h"
#include "triton_api.h"

namespace omnirt::triton {
namespace {

// Room for the module's outputs: every output the config names, and more, so
// that a module returning extra outputs still runs.
size_t output_capacity(const ModelConfig& config) {
  size_t needed = 0;
  for (const TensorSpec& spec : config.outputs) needed = std::max(needed, spec.position + 1);
  return std::max<size_t>(needed, 16);
}

}  // namespace

void InstanceState::run(const std::vector<DLTensor>& inputs, ModuleOutputs& outputs) {
  const size_t capacity = output_capacity(model_.config());
  check_omnirt(omnirt_module_run(module_.get(), inputs.data(), inputs.size(), nullptr,
                                 outputs.slots(capacity), capacity, outputs.count(), nullptr),
               "model '" + model_.config().name + "' on OmniRT " + placement_.text());
  wait_for_outputs();
}

void InstanceState::wait_for_outputs() {
  // omnirt_module_run enqueues on the device's default stream and may return
  // before the device is done (DESIGN.md, decision 12), and the outputs are
  // read right after. When the ABI gains a per-run completion call, it goes
  // here.
  check_omnirt(omnirt_device_synchronize(placement_.backend, placement_.device),
               "waiting for OmniRT " + placement_.text());
}

void InstanceState::finish(TRITONBACKEND_Request* request, bool success, uint64_t exec_start_ns,
                           uint64_t compute_start_ns, uint64_t compute_end_ns) noexcept {
  log_if_error(TRITONBACKEND_ModelInstanceReportStatistics(instance_, request, success, exec_start_ns,
                                                           compute_start_ns, compute_end_ns, now_ns()),
               "reporting request statistics");
  log_if_error(TRITONBACKEND_RequestRelease(request, TRITONSERVER_REQUEST_RELEASE_ALL),
               "releasing a request");
}

void InstanceState::execute_group(std::vector<CheckedRequest>& requests, const std::vector<size_t>& group,
                                  uint64_t exec_start_ns) noexcept {
  const ModelConfig& config = model_.config();
  uint64_t compute_start_ns = exec_start_ns;
  uint64_t compute_end_ns = exec_start_ns;
  int64_t rows = 0;
  for (size_t r : group) rows += requests[r].batch;
  bool ran = false;
  try {
    const std::vector<DLTensor>& inputs = inputs_.stage(placement_, config, requests, group);
    ModuleOutputs outputs;
    compute_start_ns = now_ns();
    run(inputs, outputs);
    compute_end_ns = now_ns();
    ran = true;

    // Each output is read on the host and checked once for the whole batch.
    std::vector<const DLTensor*> by_config(config.outputs.size());
    for (size_t k = 0; k < config.outputs.size(); ++k) {
      const TensorSpec& spec = config.outputs[k];
      if (spec.position >= outputs.size()) {
        throw Error(TRITONSERVER_ERROR_INTERNAL, "output '" + spec.name + "' of model '" + config.name +
                                                     "' is module output " + std::to_string(spec.position) +
                                                     ", but the module returned " +
                                                     std::to_string(outputs.size()) + " output(s)");
      }
      by_config[k] = &outputs_.on_host(placement_, outputs, spec.position);
      check_module_output(config, spec, *by_config[k], rows);
    }
    const OutputLookup lookup = [&](const TensorSpec& spec) -> const DLTensor& {
      return *by_config[static_cast<size_t>(&spec - config.outputs.data())];
    };
    int64_t first_row = 0;
    for (size_t r : group) {
      CheckedRequest& request = requests[r];
      try {
        send_outputs(request.request, config, lookup, first_row, request.batch);
        request.succeeded = true;
      } catch (const std::exception& e) {
        send_error(request.request, e);
      }
      request.answered = true;
      first_row += request.batch;
    }
  } catch (const std::exception& e) {
    for (size_t r : group) {
      if (!requests[r].answered) send_error(requests[r].request, e);
      requests[r].answered = true;
    }
  }
  for (size_t r : group) {
    finish(requests[r].request, requests[r].succeeded, exec_start_ns, compute_start_ns, compute_end_ns);
  }
  if (ran) {
    log_if_error(TRITONBACKEND_ModelInstanceReportBatchStatistics(instance_, static_cast<uint64_t>(rows),
                                                                  exec_start_ns, compute_start_ns,
                                                                  compute_end_ns, now_ns()),
                 "reporting batch statistics");
  }
}

void InstanceState::execute(TRITONBACKEND_Request** requests, uint32_t count) noexcept {
  uint64_t start_ns = now_ns();
  const ModelConfig& config = model_.config();
  std::vector<CheckedRequest> checked;
  std::vector<std::vector<size_t>> groups;
  uint32_t next = 0;  // requests before it are checked (and kept) or answered
  try {
    checked.reserve(count);
    for (; next < count; ++next) {
      try {
        checked.push_back(check_request(config, requests[next]));
      } catch (const Error& e) {
        send_error(requests[next], e);
        finish(requests[next], false, start_ns, start_ns, start_ns);
      }
    }
    groups = group_requests(config, checked);
  } catch (const std::exception& e) {  // out of host memory: every request left gets the error
    for (const CheckedRequest& request : checked) {
      send_error(request.request, e);
      finish(request.request, false, start_ns, start_ns, start_ns);
    }
    for (; next < count; ++next) {
      send_error(requests[next], e);
      finish(requests[next], false, start_ns, start_ns, start_ns);
    }
    return;
  }
  for (const std::vector<size_t>& group : groups) {
    execute_group(checked, group, start_ns);
    start_ns = now_ns();  // the next group's execution starts here
  }
}

}  // namespace omnirt::triton
