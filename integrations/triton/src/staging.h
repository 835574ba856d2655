// Tensors between Triton's buffers and a backend's memory, for one run:
// inputs gathered along the batch dimension (and copied to device memory for
// device backends), outputs readable on the host. Buffers are kept and reused
// by the instance across runs.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "model_config.h"
#include "omnirt/cpp/host.hpp"
#include "placement.h"
#include "requests.h"

namespace omnirt::triton {

/// Host memory that grows and is kept (not zeroed: it is always overwritten).
class ScratchBuffer {
 public:
  /// At least `size` bytes; earlier contents are not kept when it grows.
  uint8_t* reserve(size_t size);

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t capacity_ = 0;
};

class InputStaging {
 public:
  /// The module's inputs for `group` (indices into `requests`): one request's
  /// input in one host buffer is passed as Triton holds it when the backend
  /// computes on host memory; otherwise the group's rows are gathered, and
  /// copied to the device for device backends. Valid until the next call.
  const std::vector<DLTensor>& stage(const Placement& placement, const ModelConfig& config,
                                     const std::vector<CheckedRequest>& requests,
                                     const std::vector<size_t>& group);

 private:
  std::vector<ScratchBuffer> gathered_;
  std::vector<omnirt::DeviceBuffer> device_;
  std::vector<std::vector<int64_t>> shapes_;
  std::vector<DLTensor> tensors_;
};

/// The outputs of one omnirt_module_run: owned, released through their
/// deleters on destruction.
class ModuleOutputs {
 public:
  ModuleOutputs() = default;
  ~ModuleOutputs();
  ModuleOutputs(const ModuleOutputs&) = delete;
  ModuleOutputs& operator=(const ModuleOutputs&) = delete;

  /// Room for `capacity` outputs for omnirt_module_run.
  DLManagedTensor** slots(size_t capacity);
  size_t* count() { return &count_; }
  size_t size() const { return count_; }
  const DLTensor& at(size_t index) const { return slots_[index]->dl_tensor; }

 private:
  std::vector<DLManagedTensor*> slots_;
  size_t count_ = 0;
};

class OutputStaging {
 public:
  /// Output `index` of `outputs` readable on the host: the tensor itself when
  /// it is in host memory, else a copy of its bytes (strides kept). Valid
  /// while `outputs` lives and until the next run's outputs are staged.
  const DLTensor& on_host(const Placement& placement, const ModuleOutputs& outputs, size_t index);

 private:
  std::vector<ScratchBuffer> copies_;
  std::vector<DLTensor> views_;
};

}  // namespace omnirt::triton
