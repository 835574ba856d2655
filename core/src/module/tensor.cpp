#include "module/tensor.h"

#include <string>

#include "omnirt/types.h"

namespace omnirt::tensor {

std::string dtype_name(DLDataType dtype) {
  std::string base;
  switch (dtype.code) {
    case kDLFloat:
      base = "float";
      break;
    case kDLInt:
      base = "int";
      break;
    case kDLUInt:
      base = dtype.bits == 1 ? "" : "uint";
      break;
    case OMNIRT_DL_BOOL:
      base = dtype.bits == 8 ? "" : "bool";
      break;
    case kDLBfloat:
      base = "bfloat";
      break;
    case kDLComplex:
      base = "complex";
      break;
    default:
      base = "code" + std::to_string(dtype.code) + "_";
      break;
  }
  std::string name = base.empty() ? std::string("bool") : base + std::to_string(dtype.bits);
  if (dtype.lanes != 1) name += "x" + std::to_string(dtype.lanes);
  return name;
}

std::string device_type_name(int32_t device_type) {
  switch (device_type) {
    case kDLCPU:
      return "kDLCPU";
    case kDLCUDA:
      return "kDLCUDA";
    case kDLCUDAHost:
      return "kDLCUDAHost";
    case kDLOpenCL:
      return "kDLOpenCL";
    case kDLVulkan:
      return "kDLVulkan";
    case kDLMetal:
      return "kDLMetal";
    case kDLVPI:
      return "kDLVPI";
    case kDLROCM:
      return "kDLROCM";
    case kDLROCMHost:
      return "kDLROCMHost";
    case kDLExtDev:
      return "kDLExtDev";
    case kDLCUDAManaged:
      return "kDLCUDAManaged";
    default:
      return "device type " + std::to_string(device_type);
  }
}

std::string device_name(DLDevice device) {
  return device_type_name(device.device_type) + ":" + std::to_string(device.device_id);
}

int64_t numel(const DLTensor& t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

uint64_t nbytes(const DLTensor& t) {
  const uint64_t bits = static_cast<uint64_t>(t.dtype.bits) * t.dtype.lanes;
  return static_cast<uint64_t>(numel(t)) * ((bits + 7) / 8);
}

bool is_host_memory(int32_t device_type) {
  return device_type == kDLCPU || device_type == kDLCUDAHost;
}

std::optional<std::string> check(const DLTensor& t, size_t index, const char* role,
                                 std::optional<DLDevice> expected_device) {
  // Built only on failure: this check is on every run's path.
  auto who = [&] { return std::string(role) + " " + std::to_string(index); };
  if (t.ndim < 0) {
    return who() + ": expected ndim >= 0, got " + std::to_string(t.ndim);
  }
  if (t.ndim > 0 && t.shape == nullptr) {
    return who() + ": expected a shape array for ndim " + std::to_string(t.ndim) + ", got NULL";
  }
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] < 0) {
      return who() + ": expected dimension " + std::to_string(d) + " >= 0, got " +
             std::to_string(t.shape[d]);
    }
  }
  if (t.dtype.lanes != 1 || t.dtype.bits == 0) {
    return who() + ": expected a scalar dtype (lanes 1, bits > 0), got " + dtype_name(t.dtype);
  }
  if (t.data == nullptr && numel(t) > 0) {
    return who() + ": expected data for " + std::to_string(numel(t)) + " elements, got NULL";
  }
  if (expected_device && (t.device.device_type != expected_device->device_type ||
                          t.device.device_id != expected_device->device_id)) {
    return who() + ": expected device " + device_name(*expected_device) + ", got " +
           device_name(t.device);
  }
  return std::nullopt;
}

}  // namespace omnirt::tensor
