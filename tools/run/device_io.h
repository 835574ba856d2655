// Moving omnirt-run's tensors between host memory and a backend's memory.
#pragma once

#include <vector>

#include "host_tensor.h"
#include "omnirt/host.h"

namespace omnirt::run {

/// Inputs as the backend needs them: views of the host tensors when the
/// backend computes on host memory, else copies in its device memory (freed
/// on destruction). Throws std::runtime_error with the host's message.
class DeviceInputs {
 public:
  DeviceInputs(omnirt_backend* backend, int32_t device, std::vector<HostTensor>& inputs);
  ~DeviceInputs();
  DeviceInputs(const DeviceInputs&) = delete;
  DeviceInputs& operator=(const DeviceInputs&) = delete;

  const std::vector<DLTensor>& tensors() const { return tensors_; }

 private:
  omnirt_backend* backend_;
  int32_t device_;
  std::vector<void*> owned_;
  std::vector<DLTensor> tensors_;
};

/// Copies an output to host memory in row-major order, through the backend
/// when it lives in device memory; a strided output becomes a compact copy.
HostTensor to_host(omnirt_backend* backend, const DLTensor& output);

/// Throws std::runtime_error with omnirt_last_error()'s message unless OK.
void check(omnirt_status status, const char* what);

}  // namespace omnirt::run
