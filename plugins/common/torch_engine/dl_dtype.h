// DLPack dtypes <-> libtorch scalar types at a TorchScript engine's edge, bool
// included on every libtorch: OMNIRT_DL_BOOL (kDLBool, 8 bits) and the older
// {kDLUInt, 1, 1} in, OMNIRT_DL_BOOL out. libtorch 1.13's own DLPack tables
// refuse bool both ways; 2.x's know kDLBool but not {kDLUInt, 1, 1}.
#ifndef OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_DL_DTYPE_H_
#define OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_DL_DTYPE_H_

// libtorch's DLPack header first: it shares the include guard of dlpack.h,
// and a CUDA PyTorch 2.x needs its own (newer) one to win.
#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>

#include <optional>
#include <string>

#include "omnirt/types.h"

namespace omnirt::torch_common {

/// The one form of each dtype: {kDLUInt, 1, 1} becomes {OMNIRT_DL_BOOL, 8, 1}.
DLDataType canonical(DLDataType dtype);

/// The scalar type of `dtype`, or nothing with libtorch's reason in *why when
/// this libtorch cannot hold it. (No text is made when it can: every run asks.)
std::optional<at::ScalarType> scalar_type(DLDataType dtype, std::string* why);

/// Throws INVALID_ARGUMENT "<who>: dtype X is not supported (libtorch: <why>)".
[[noreturn]] void refuse_dtype(const std::string& who, DLDataType dtype, const std::string& why);

/// The DLPack dtype of `tensor`, output `name` ("" when it has none). Throws
/// INVALID_ARGUMENT naming the output for a type DLPack has no code for
/// (quantized types, ...).
DLDataType dl_dtype(const at::Tensor& tensor, const std::string& name);

}  // namespace omnirt::torch_common

#endif  // OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_DL_DTYPE_H_
