// Where an instance runs: Triton's instance kind and device id mapped to an
// OmniRT backend and device.
#pragma once

#include <cstdint>
#include <string>

#include "omnirt/host.h"
#include "triton/core/tritonserver.h"

namespace omnirt::triton {

struct Placement {
  omnirt_backend* backend = nullptr;
  std::string backend_name;
  int32_t device = 0;
  /// DLPack device type of the backend's memory (kDLCPU, kDLCUDA, ...).
  int32_t device_type = kDLCPU;
  /// The backend's memory is host memory: inputs are passed as Triton holds
  /// them, outputs read in place.
  bool host_memory = true;

  /// "cpu:0".
  std::string text() const { return backend_name + ":" + std::to_string(device); }
};

/// Checks that backend `name` (not "auto") can be selected on `host`; throws
/// Error with OmniRT's status and reason (verbatim) when it cannot.
omnirt_backend* select_backend(omnirt_host* host, const std::string& name);

/// Places an instance of `kind` on `device_id`:
///  - KIND_CPU: device 0 of a backend computing on host memory;
///  - KIND_GPU: device `device_id` of a backend with its own device memory;
///  - KIND_MODEL: device 0 of the backend, whatever its memory.
/// Backend `name` "auto" takes the first available backend (OmniRT's
/// selection order) that fits the kind and runs modules; a named backend
/// that does not fit the kind is an error saying so.
Placement place_instance(omnirt_host* host, const std::string& name, TRITONSERVER_InstanceGroupKind kind,
                         int32_t device_id);

}  // namespace omnirt::triton
