// DLPack tensor helpers shared by module runs, named ops and reports:
// names for messages and JSON, sizes, and the host-side sanity check.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <optional>
#include <string>

namespace omnirt::tensor {

/// "float32", "int64", "bool", ... ("uint16x4" style for unusual types).
std::string dtype_name(DLDataType dtype);
/// "kDLCPU", "kDLCUDA", ... ("device type 42" when unknown).
std::string device_type_name(int32_t device_type);
/// "kDLCPU:0".
std::string device_name(DLDevice device);
/// Number of elements; 1 for a scalar (ndim 0).
int64_t numel(const DLTensor& t);
/// Bytes of a compact tensor of this shape and dtype.
uint64_t nbytes(const DLTensor& t);
/// True for memory the host CPU can read directly (kDLCPU, kDLCUDAHost).
bool is_host_memory(int32_t device_type);

/// Checks what the host can check of tensor `index` of `role` ("input",
/// "output"): ndim >= 0, shape present and >= 0, a plain dtype, data present
/// when numel > 0, and (when given) the device. Returns the message naming
/// the tensor, the expected and the actual value, or nothing when fine.
std::optional<std::string> check(const DLTensor& t, size_t index, const char* role,
                                 std::optional<DLDevice> expected_device);

}  // namespace omnirt::tensor
