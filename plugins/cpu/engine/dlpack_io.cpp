#include "dlpack_io.h"

#include <ATen/DLConvertor.h>
#include <ATen/Functions.h>

#include "dlpack_text.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu_engine {
namespace {

using omnirt::plugin::fail;

// Beyond this an ndim is garbage, not a tensor (libtorch's own limit is 64).
constexpr int32_t kMaxDims = 64;

std::string signature_text(const ForwardSignature& s) {
  std::string text = "forward(";
  for (size_t i = 0; i < s.names.size(); ++i) {
    if (i > 0) text += ", ";
    text += s.names[i];
    if (i >= s.required) text += "=<default>";
  }
  return text + ")";
}

// `index` and `name` identify the input in messages; the text is built only
// on failure, runs that succeed allocate none.
at::Tensor wrap(const DLTensor& t, size_t index, const std::string& name) {
  auto who = [&] { return "input " + std::to_string(index) + " ('" + name + "')"; };
  if (t.device.device_type != kDLCPU || t.device.device_id != 0) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT,
         who() + ": device must be cpu:0, got " + omnirt::cpu::device_text(t.device));
  }
  // libtorch's own DLPack table. What it takes follows its version: 1.13 has
  // float16/32/64, bfloat16, int8/16/32/64, uint8 and complex32/64/128; 2.x
  // adds uint16/32/64 and kDLBool (and later float8). lanes != 1 never
  // (newer releases: but for float4_e2m1fn x2).
  at::ScalarType type = at::ScalarType::Undefined;
  try {
    type = at::toScalarType(t.dtype);
  } catch (const c10::Error& e) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, who() + ": dtype " + omnirt::cpu::dtype_text(t.dtype) +
                                             " is not supported (libtorch: " +
                                             e.what_without_backtrace() + ")");
  }
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
  maker.options(at::TensorOptions().dtype(type).device(cpu)).target_device(cpu);
  if (t.strides != nullptr) maker.strides(at::IntArrayRef(t.strides, ndim));
  return maker.make_tensor();
}

void flatten(const c10::IValue& value, const std::string& where, std::vector<at::Tensor>& out) {
  if (value.isTensor()) {
    if (!value.toTensor().defined()) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, where + " is an undefined tensor");
    }
    out.push_back(value.toTensor());
    return;
  }
  if (value.isTuple() || value.isList()) {
    const auto elements = value.isTuple() ? value.toTupleRef().elements().vec()
                                          : value.toListRef().vec();
    for (size_t i = 0; i < elements.size(); ++i) {
      flatten(elements[i], where + "[" + std::to_string(i) + "]", out);
    }
    return;
  }
  fail(OMNIRT_STATUS_INVALID_ARGUMENT,
       where + " is of type " + value.type()->annotation_str() +
           "; the cpu engine returns only tensors and tuples/lists of tensors");
}

}  // namespace

ForwardSignature ForwardSignature::of(const c10::FunctionSchema& schema) {
  ForwardSignature s;
  const auto& args = schema.arguments();
  // arguments()[0] is `self`.
  for (size_t i = 1; i < args.size(); ++i) {
    const bool takes_tensor = c10::TensorType::get()->isSubtypeOf(*args[i].type());
    const bool has_default = args[i].default_value().has_value();
    if (!takes_tensor) {
      if (!has_default) {
        fail(OMNIRT_STATUS_INVALID_ARGUMENT,
             "forward's argument '" + args[i].name() + "' is of type " +
                 args[i].type()->annotation_str() + "; the cpu engine passes only tensors");
      }
      break;  // it and what follows keep their defaults
    }
    s.names.push_back(args[i].name());
    if (!has_default) s.required = s.names.size();
  }
  return s;
}

std::vector<c10::IValue> wrap_inputs(const ForwardSignature& signature, const DLTensor* inputs,
                                     size_t num_inputs) {
  if (num_inputs < signature.required || num_inputs > signature.names.size()) {
    const std::string expected =
        signature.required == signature.names.size()
            ? std::to_string(signature.required)
            : std::to_string(signature.required) + " to " + std::to_string(signature.names.size());
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, signature_text(signature) + " takes " + expected +
                                             " input tensors, got " + std::to_string(num_inputs));
  }
  std::vector<c10::IValue> values;
  values.reserve(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    values.emplace_back(wrap(inputs[i], i, signature.names[i]));
  }
  return values;
}

std::vector<at::Tensor> flatten_outputs(const c10::IValue& result,
                                        const std::vector<c10::IValue>& inputs) {
  std::vector<at::Tensor> outputs;
  if (result.isTensor() && result.toTensor().defined()) {
    outputs.push_back(result.toTensor());  // the common case, without building a name
  } else {
    flatten(result, "forward's result", outputs);
  }
  for (at::Tensor& out : outputs) {
    for (const c10::IValue& in : inputs) {
      if (out.storage().is_alias_of(in.toTensor().storage())) {
        out = out.clone();
        break;
      }
    }
  }
  return outputs;
}

}  // namespace omnirt::cpu_engine
