#include "dlpack_io.h"

#include <ATen/Functions.h>

#include "dlpack_text.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu_engine {
namespace {

using omnirt::plugin::fail;
using torch_common::input_text;

// Beyond this an ndim is garbage, not a tensor (libtorch's own limit is 64).
constexpr int32_t kMaxDims = 64;

// `index` and `name` identify the input in messages; the text is built only
// on failure, runs that succeed allocate none.
at::Tensor wrap(const DLTensor& t, size_t index, const std::string& name) {
  auto who = [&] { return input_text(index, name); };
  if (t.device.device_type != kDLCPU || t.device.device_id != 0) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT,
         who() + ": device must be cpu:0, got " + omnirt::cpu::device_text(t.device));
  }
  std::string why;
  const std::optional<at::ScalarType> type = torch_common::scalar_type(t.dtype, &why);
  if (!type) torch_common::refuse_dtype(who(), t.dtype, why);
  if (t.ndim < 0 || t.ndim > kMaxDims || (t.ndim > 0 && t.shape == nullptr)) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, who() + ": ndim must be 0.." + std::to_string(kMaxDims) +
                                             " with a shape, got ndim " + std::to_string(t.ndim));
  }
  int64_t numel = 1;
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] < 0) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, who() + ": shape[" + std::to_string(d) +
                                               "] must be >= 0, got " + std::to_string(t.shape[d]));
    }
    if (t.strides != nullptr && t.strides[d] < 0) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, who() + ": strides[" + std::to_string(d) +
                                               "] must be >= 0 (libtorch has no negative strides), got " +
                                               std::to_string(t.strides[d]));
    }
    numel *= t.shape[d];
  }
  if (numel > 0 && t.data == nullptr) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT,
         who() + ": data is NULL but the tensor has " + std::to_string(numel) + " elements");
  }
  // for_blob borrows: no copy, no ownership. byte_offset is applied here
  // because at::fromDLPack (1.13) ignores it. The device is given, so that
  // libtorch does not look it up from the pointer (as from_blob does).
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  const auto ndim = static_cast<size_t>(t.ndim);
  at::TensorMaker maker = at::for_blob(data, at::IntArrayRef(t.shape, ndim));
  const at::Device cpu(at::kCPU);
  maker.options(at::TensorOptions().dtype(*type).device(cpu)).target_device(cpu);
  if (t.strides != nullptr) maker.strides(at::IntArrayRef(t.strides, ndim));
  return maker.make_tensor();
}

}  // namespace

std::vector<c10::IValue> wrap_inputs(const torch_common::ForwardSignature& signature,
                                     const DLTensor* inputs, size_t num_inputs) {
  return torch_common::to_arguments(signature, inputs, num_inputs, &wrap);
}

std::vector<torch_common::NamedTensor> take_outputs(const c10::IValue& result,
                                                    const std::vector<c10::IValue>& inputs) {
  std::vector<torch_common::NamedTensor> outputs = torch_common::flatten_result(result);
  for (torch_common::NamedTensor& out : outputs) {
    for (const c10::IValue& in : inputs) {
      if (in.isTensor() && out.tensor.storage().is_alias_of(in.toTensor().storage())) {
        out.tensor = out.tensor.clone();
        break;
      }
    }
  }
  return outputs;
}

}  // namespace omnirt::cpu_engine
