// An engine's output handed to its caller as a DLManagedTensor that owns the
// tensor and the output's name, both released by its deleter (which stays
// valid after the module is destroyed: it lives in the engine, never
// unloaded).
#ifndef OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_EXPORTED_TENSOR_H_
#define OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_EXPORTED_TENSOR_H_

#include "dl_dtype.h"  // first: libtorch's DLPack header must win

#include <memory>
#include <string>

namespace omnirt::torch_common {

/// `tensor` as a caller-owned DLManagedTensor on its device (cpu:0 or
/// cuda:N), bool as OMNIRT_DL_BOOL, named `name`, made by `origin` (the
/// module; compared only, never read). `keep` lives as long as the output.
/// Throws INVALID_ARGUMENT, before taking anything, for a dtype DLPack lacks.
DLManagedTensor* export_tensor(at::Tensor tensor, std::string name, const void* origin,
                               std::shared_ptr<void> keep = nullptr);

/// The name of `output` when export_tensor of this engine made it for
/// `origin`; nullptr for any other tensor.
const char* exported_name(const DLManagedTensor* output, const void* origin);

}  // namespace omnirt::torch_common

#endif  // OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_EXPORTED_TENSOR_H_
