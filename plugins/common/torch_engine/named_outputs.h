// forward's result as the flat list of tensors an engine hands out, each
// with its name: a dict's entries flattened in ascending byte order of their
// keys (whatever order the module inserted them in, so that positions are
// stable), named by the key; nested dicts join keys with '.'; tuple and list
// elements keep the name of what holds them ("" at the top).
#ifndef OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_NAMED_OUTPUTS_H_
#define OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_NAMED_OUTPUTS_H_

#include "dl_dtype.h"  // first: libtorch's DLPack header must win

#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

#include <string>
#include <vector>

namespace omnirt::torch_common {

struct NamedTensor {
  std::string name;
  at::Tensor tensor;
};

/// Throws INVALID_ARGUMENT, at load, when forward's declared result is not a
/// tensor or tuples, lists and Dict[str, ...] of tensors (what flatten_result
/// can hand out); `engine` ("the cpu engine") says who refuses it.
void check_result_type(const c10::FunctionSchema& schema, const std::string& engine);

/// The tensors of `result`, flattened as the file comment says. Throws
/// INVALID_ARGUMENT naming an element that is not a tensor, or undefined.
std::vector<NamedTensor> flatten_result(const c10::IValue& result);

}  // namespace omnirt::torch_common

#endif  // OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_NAMED_OUTPUTS_H_
