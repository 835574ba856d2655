// Triton datatypes against OmniRT's: config names ("TYPE_FP32"), element
// sizes, the DLPack type a tensor of each carries, and the omnirt_dtype a
// backend advertises it with. Pure: no Triton function is called.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "omnirt/types.h"
#include "triton/core/tritonserver.h"

namespace omnirt::triton {

/// The type named by a model config's `data_type` ("TYPE_FP32"); INVALID
/// when the name is unknown.
TRITONSERVER_DataType datatype_from_config(std::string_view name);

/// Triton's short name ("FP32"), as in KServe v2 requests.
const char* datatype_name(TRITONSERVER_DataType type);

/// Bytes per element; 0 for BYTES (strings) and INVALID.
size_t element_size(TRITONSERVER_DataType type);

/// The omnirt_dtype a backend advertises this type with, or nothing when
/// OmniRT has no such dtype (UINT16/32/64, BYTES).
std::optional<omnirt_dtype> omnirt_type(TRITONSERVER_DataType type);

/// The DLPack type of tensors of this type (BOOL as DLPack's kDLBool, 8 bits),
/// or nothing when OmniRT has no such dtype.
std::optional<DLDataType> dlpack_type(TRITONSERVER_DataType type);

/// The Triton type of a DLPack type, INVALID when there is none.
TRITONSERVER_DataType datatype_of(DLDataType type);

/// For messages: "FP32", or "DLPack code 5 bits 64" for a type Triton lacks.
std::string dlpack_type_name(DLDataType type);

}  // namespace omnirt::triton
