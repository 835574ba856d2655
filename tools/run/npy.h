// NumPy .npy files (format 1.0-3.0): little-endian, C order, the dtypes of
// host_tensor.h. Errors throw std::runtime_error naming the file.
#pragma once

#include <string>

#include "host_tensor.h"

namespace omnirt::run {

HostTensor read_npy(const std::string& path);
/// The .npy file whose bytes are `data`; `name` names it in errors.
HostTensor parse_npy(const std::string& data, const std::string& name);
void write_npy(const std::string& path, const HostTensor& tensor);

}  // namespace omnirt::run
