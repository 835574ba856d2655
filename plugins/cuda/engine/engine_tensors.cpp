#include "engine_tensors.h"

#include <cstring>

namespace omnirt::cuda_engine {
namespace {

using omnirt::plugin::fail;

// An output as a caller-owned DLManagedTensor.
struct Owned {
  at::Tensor tensor;
  std::shared_ptr<OutputLease> lease;
  DLManagedTensor managed{};
};

}  // namespace

// What it takes follows the libtorch version: PyTorch 2.x takes kDLBool,
// uint8/16/32/64 and complex32/64/128 besides the float, bfloat16 and int
// types, later releases the float8 codes and float4_e2m1fn x2 too; lanes
// must be 1 otherwise. (1.13 took neither kDLBool nor uint16/32/64.)
at::ScalarType scalar_type(const DLDataType& t, size_t index) {
  try {
    return at::toScalarType(t);
  } catch (const c10::Error& e) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT,
         "input " + std::to_string(index) + ": dtype (code " + std::to_string(t.code) + ", bits " +
             std::to_string(t.bits) + ", lanes " + std::to_string(t.lanes) +
             ") is not supported (libtorch: " + e.what_without_backtrace() + ")");
  }
}

// PyTorch 2.x gives bool as kDLBool (1.13 refused bool) and refuses the
// quantized and bit types (and float8 before its DLPack 1.1 codes).
DLDataType dl_type(const at::Tensor& t) {
  try {
    return at::getDLDataType(t);
  } catch (const c10::Error& e) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string("output dtype ") +
                                             c10::toString(t.scalar_type()) +
                                             " has no DLPack type (libtorch: " +
                                             e.what_without_backtrace() + ")");
  }
}

at::Tensor wrap(const DLTensor& t, int device, size_t index) {
  auto who = [index] { return "input " + std::to_string(index); };  // built on failure only
  if (t.device.device_type != kDLCUDA || t.device.device_id != device) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT,
         who() + ": must be on cuda:" + std::to_string(device) + ", got device type " +
             std::to_string(t.device.device_type) + " id " + std::to_string(t.device.device_id));
  }
  if (t.ndim < 0 || t.ndim > 64 || (t.ndim > 0 && t.shape == nullptr)) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, who() + ": bad ndim " + std::to_string(t.ndim));
  }
  const at::ScalarType type = scalar_type(t.dtype, index);
  // The device is given: at::from_blob without one asks CUDA for the
  // pointer's device (cudaPointerGetAttributes) on every run. The DLTensor's
  // device label is trusted, as torch.from_dlpack trusts it (engine_api.h).
  const at::Device where(at::kCUDA, c10::DeviceIndex(device));
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  at::TensorMaker maker = at::for_blob(data, at::IntArrayRef(t.shape, size_t(t.ndim)));
  maker.options(at::TensorOptions().dtype(type).device(where)).target_device(where);
  if (t.strides != nullptr) maker.strides(at::IntArrayRef(t.strides, size_t(t.ndim)));
  return maker.make_tensor();
}

std::vector<at::Tensor> wrap_all(const DLTensor* inputs, size_t num_inputs, int device) {
  std::vector<at::Tensor> tensors;
  tensors.reserve(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) tensors.push_back(wrap(inputs[i], device, i));
  return tensors;
}

DLManagedTensor* hand_out(at::Tensor tensor, std::shared_ptr<OutputLease> lease) {
  const DLDataType dtype = dl_type(tensor);  // may throw: before anything is taken
  auto* owned = new Owned{std::move(tensor), std::move(lease), {}};
  if (owned->lease) owned->lease->held.fetch_add(1);
  DLTensor& dl = owned->managed.dl_tensor;
  dl.data = owned->tensor.data_ptr();
  dl.device = {kDLCUDA, int32_t(owned->tensor.get_device())};
  dl.ndim = int32_t(owned->tensor.dim());
  dl.dtype = dtype;
  dl.shape = const_cast<int64_t*>(owned->tensor.sizes().data());
  dl.strides = const_cast<int64_t*>(owned->tensor.strides().data());
  dl.byte_offset = 0;
  owned->managed.manager_ctx = owned;
  owned->managed.deleter = [](DLManagedTensor* self) {
    auto* o = static_cast<Owned*>(self->manager_ctx);
    if (o->lease) o->lease->held.fetch_sub(1);
    delete o;
  };
  return &owned->managed;
}

void hand_out_all(std::vector<at::Tensor> tensors, const std::shared_ptr<OutputLease>& lease,
                  std::vector<DLManagedTensor*>& out) {
  out.reserve(out.size() + tensors.size());  // push_back cannot throw below
  for (at::Tensor& t : tensors) out.push_back(hand_out(std::move(t), lease));
}

void write_message(const std::string& text, char* message, size_t capacity) {
  if (message == nullptr || capacity == 0) return;
  const size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(message, text.data(), n);
  message[n] = '\0';
}

}  // namespace omnirt::cuda_engine
