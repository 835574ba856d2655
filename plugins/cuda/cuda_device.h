// Devices: the per-thread current-device guard every device call runs under
// (PLUGIN_RULES 11: the caller's current device is restored), and the
// device description.
#ifndef OMNIRT_PLUGINS_CUDA_CUDA_DEVICE_H_
#define OMNIRT_PLUGINS_CUDA_CUDA_DEVICE_H_

#include "cuda_symbols.h"
#include "omnirt/types.h"

namespace omnirt::cuda {

/// Makes `device` current on this thread for the guard's lifetime.
class DeviceGuard {
 public:
  DeviceGuard(const Symbols& cuda, int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  const Symbols& cuda_;
  int previous_ = 0;
  bool switched_ = false;
};

/// Fills name, arch ("sm_90"), memory and SM count of `device`.
void describe_device(const Symbols& cuda, int device, omnirt_device_info& info);

/// The device a pointer's memory lives on, or -1 for host memory.
int device_of_pointer(const Symbols& cuda, const void* ptr);

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_DEVICE_H_
