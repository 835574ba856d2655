#include "cuda_device.h"

#include <cstdio>
#include <cstring>

#include "cuda_status.h"
#include "omnirt_plugin_common/device_objects.h"

namespace omnirt::cuda {

DeviceGuard::DeviceGuard(const Symbols& cuda, int device) : cuda_(cuda) {
  OMNIRT_CUDA_CALL(cuda_, cudaGetDevice, &previous_);
  if (previous_ != device) {
    OMNIRT_CUDA_CALL(cuda_, cudaSetDevice, device);
    switched_ = true;
  }
}

DeviceGuard::~DeviceGuard() {
  if (switched_) cuda_.cudaSetDevice(previous_);
}

void describe_device(const Symbols& cuda, int device, omnirt_device_info& info) {
  cudaDeviceProp prop{};
  OMNIRT_CUDA_CALL(cuda, cudaGetDeviceProperties, &prop, device);
  info.dl_device_type = kDLCUDA;
  plugin_common::copy_text(info.name, prop.name);
  std::snprintf(info.arch, sizeof info.arch, "sm_%d%d", prop.major, prop.minor);
  info.total_memory_bytes = prop.totalGlobalMem;
  info.compute_units = prop.multiProcessorCount;
}

int device_of_pointer(const Symbols& cuda, const void* ptr) {
  cudaPointerAttributes attributes{};
  OMNIRT_CUDA_CALL(cuda, cudaPointerGetAttributes, &attributes, ptr);
  const bool on_device =
      attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  return on_device ? attributes.device : -1;
}

}  // namespace omnirt::cuda
