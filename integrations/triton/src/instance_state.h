// A model instance: one module wrapped by OmniRT on the instance's device at
// TRITONBACKEND_ModelInstanceInitialize, and the Execute call that runs it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model_state.h"
#include "placement.h"
#include "staging.h"
#include "triton/core/tritonbackend.h"

namespace omnirt::triton {

class InstanceState {
 public:
  /// Places the instance (placement.h), checks the config's datatypes against
  /// the backend's, and wraps the model file; the wrap timeline goes to
  /// Triton's log. Throws Error with OmniRT's reason when no tier succeeds.
  InstanceState(TRITONBACKEND_ModelInstance* instance, const ModelState& model);

  /// Answers and releases every request: runs the checked requests in
  /// batches, sends each its rows of the outputs or its error, and reports
  /// statistics. Never throws.
  void execute(TRITONBACKEND_Request** requests, uint32_t count) noexcept;

 private:
  struct ModuleDeleter {
    void operator()(omnirt_module* module) const { omnirt_module_destroy(module); }
  };

  /// Runs one batch; on success `outputs` holds the module's outputs.
  void run(const std::vector<DLTensor>& inputs, ModuleOutputs& outputs);
  /// Waits until the run's outputs are complete on the device. The one place
  /// that knows omnirt_module_run may return before the device finishes.
  void wait_for_outputs();
  /// Runs `group` (indices into `requests`), answers and releases its
  /// requests, and reports their statistics.
  void execute_group(std::vector<CheckedRequest>& requests, const std::vector<size_t>& group,
                     uint64_t exec_start_ns) noexcept;
  /// Reports a request's statistics and releases it.
  void finish(TRITONBACKEND_Request* request, bool success, uint64_t exec_start_ns, uint64_t compute_start_ns,
              uint64_t compute_end_ns) noexcept;

  TRITONBACKEND_ModelInstance* instance_;
  const ModelState& model_;
  std::string name_;
  Placement placement_;
  std::unique_ptr<omnirt_module, ModuleDeleter> module_;
  InputStaging inputs_;
  OutputStaging outputs_;
};

}  // namespace omnirt::triton
