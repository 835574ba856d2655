#include "engine_tensors.h"

#include <cstring>
#include <optional>

#include "engine_memory.h"
#include "torch_engine/exported_tensor.h"
#include "torch_engine/forward_signature.h"

namespace omnirt::cuda_engine {

using omnirt::plugin::fail;

at::Tensor wrap(const DLTensor& t, int device, size_t index, const std::string& name) {
  auto who = [&] { return torch_common::input_text(index, name); };  // built on failure only
  if (t.device.device_type != kDLCUDA || t.device.device_id != device) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT,
         who() + ": must be on cuda:" + std::to_string(device) + ", got device type " +
             std::to_string(t.device.device_type) + " id " + std::to_string(t.device.device_id));
  }
  if (t.ndim < 0 || t.ndim > 64 || (t.ndim > 0 && t.shape == nullptr)) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, who() + ": bad ndim " + std::to_string(t.ndim));
  }
  std::string why;
  const std::optional<at::ScalarType> type = torch_common::scalar_type(t.dtype, &why);
  if (!type) torch_common::refuse_dtype(who(), t.dtype, why);
  // The device is given: at::from_blob without one asks CUDA for the
  // pointer's device (cudaPointerGetAttributes) on every run. The DLTensor's
  // device label is trusted, as torch.from_dlpack trusts it (engine_api.h).
  const at::Device where(at::kCUDA, c10::DeviceIndex(device));
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  at::TensorMaker maker = at::for_blob(data, at::IntArrayRef(t.shape, size_t(t.ndim)));
  maker.options(at::TensorOptions().dtype(*type).device(where)).target_device(where);
  if (t.strides != nullptr) maker.strides(at::IntArrayRef(t.strides, size_t(t.ndim)));
  return maker.make_tensor();
}

std::vector<at::Tensor> wrap_all(const DLTensor* inputs, size_t num_inputs, int device) {
  std::vector<at::Tensor> tensors;
  tensors.reserve(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) tensors.push_back(wrap(inputs[i], device, i));
  return tensors;
}

std::vector<NamedTensor> unnamed(std::vector<at::Tensor> tensors) {
  std::vector<NamedTensor> outputs;
  outputs.reserve(tensors.size());
  for (at::Tensor& t : tensors) outputs.push_back({std::string(), std::move(t)});
  return outputs;
}

namespace {

// What an output keeps alive: the graph slot it came from, counted as held,
// and what it holds of the pool of the module whose run made it
// (engine_memory.h), which goes last: the slot's static inputs are in that
// pool, whose memory goes back to the plugin once both are gone.
struct Keep {
  Keep(std::shared_ptr<void> p, std::shared_ptr<OutputLease> l)
      : pool(std::move(p)), lease(std::move(l)) {
    if (lease) lease->held.fetch_add(1);
  }
  ~Keep() {
    if (lease) lease->held.fetch_sub(1);
  }
  Keep(const Keep&) = delete;
  Keep& operator=(const Keep&) = delete;

  std::shared_ptr<void> pool;  // first, so it goes after the lease
  std::shared_ptr<OutputLease> lease;
};

}  // namespace

DLManagedTensor* hand_out(NamedTensor output, const void* origin, std::shared_ptr<OutputLease> lease) {
  std::shared_ptr<void> pool = current_pool();
  std::shared_ptr<void> keep;
  if (lease || pool) keep = std::make_shared<Keep>(std::move(pool), std::move(lease));
  return torch_common::export_tensor(std::move(output.tensor), std::move(output.name), origin,
                                     std::move(keep));
}

void hand_out_all(std::vector<NamedTensor> outputs, const void* origin,
                  const std::shared_ptr<OutputLease>& lease, std::vector<DLManagedTensor*>& out) {
  out.reserve(out.size() + outputs.size());  // push_back cannot throw below
  for (NamedTensor& t : outputs) out.push_back(hand_out(std::move(t), origin, lease));
}

void write_message(const std::string& text, char* message, size_t capacity) {
  if (message == nullptr || capacity == 0) return;
  const size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(message, text.data(), n);
  message[n] = '\0';
}

}  // namespace omnirt::cuda_engine
