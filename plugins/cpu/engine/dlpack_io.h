// DLPack <-> libtorch at the engine's edge: borrowed DLTensor inputs checked
// against forward's signature and wrapped without a copy; outputs flattened
// and handed out as caller-owned DLManagedTensors.
#ifndef OMNIRT_CPU_ENGINE_DLPACK_IO_H_
#define OMNIRT_CPU_ENGINE_DLPACK_IO_H_

#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

#include <string>
#include <vector>

#include "omnirt/types.h"

namespace omnirt::cpu_engine {

// What forward accepts: the leading tensor arguments after `self`.
struct ForwardSignature {
  std::vector<std::string> names;  // of the tensor arguments callers may pass
  size_t required = 0;             // how many of them have no default

  // Throws INVALID_ARGUMENT when a required argument is not a tensor.
  static ForwardSignature of(const c10::FunctionSchema& schema);
};

// Checks each input (device, dtype, shape, data) and wraps it as an at::Tensor
// over the caller's memory. Throws INVALID_ARGUMENT naming the input.
std::vector<c10::IValue> wrap_inputs(const ForwardSignature& signature,
                                     const DLTensor* inputs, size_t num_inputs);

// The tensors of forward's result, flattened in order. An output sharing
// memory with an input is copied, so outputs never borrow the caller's
// buffers. Throws INVALID_ARGUMENT naming an output that is not a tensor.
std::vector<at::Tensor> flatten_outputs(const c10::IValue& result,
                                        const std::vector<c10::IValue>& inputs);

}  // namespace omnirt::cpu_engine

#endif  // OMNIRT_CPU_ENGINE_DLPACK_IO_H_
