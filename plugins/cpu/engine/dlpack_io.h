// DLPack <-> libtorch at the cpu engine's edge: borrowed DLTensor inputs
// checked and wrapped without a copy as forward's arguments; outputs that
// share memory with an input copied, so outputs never borrow the caller's
// buffers.
#ifndef OMNIRT_CPU_ENGINE_DLPACK_IO_H_
#define OMNIRT_CPU_ENGINE_DLPACK_IO_H_

#include "torch_engine/forward_signature.h"  // first: libtorch's DLPack header must win
#include "torch_engine/named_outputs.h"

#include <vector>

namespace omnirt::cpu_engine {

// forward's stack for the caller's inputs: each checked (device, dtype,
// shape, data) and, for a tensor argument, an at::Tensor over the caller's
// memory. Throws INVALID_ARGUMENT naming the input.
std::vector<c10::IValue> wrap_inputs(const torch_common::ForwardSignature& signature,
                                     const DLTensor* inputs, size_t num_inputs);

// forward's named outputs (torch_engine/named_outputs.h), each that shares
// memory with one of `inputs` copied.
std::vector<torch_common::NamedTensor> take_outputs(const c10::IValue& result,
                                                    const std::vector<c10::IValue>& inputs);

}  // namespace omnirt::cpu_engine

#endif  // OMNIRT_CPU_ENGINE_DLPACK_IO_H_
