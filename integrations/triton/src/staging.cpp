#include "staging.h"

#include "error.h"
#include "host_copy.h"
#include "tensor_types.h"

namespace omnirt::triton {

uint8_t* ScratchBuffer::reserve(size_t size) {
  if (size > capacity_) {
    data_.reset(new uint8_t[size]);
    capacity_ = size;
  }
  return data_.get();
}

const std::vector<DLTensor>& InputStaging::stage(const Placement& placement, const ModelConfig& config,
                                                 const std::vector<CheckedRequest>& requests,
                                                 const std::vector<size_t>& group) {
  const size_t count = config.inputs.size();
  gathered_.resize(count);
  device_.resize(count);
  shapes_.resize(count);
  tensors_.resize(count);
  int64_t rows = 0;
  for (size_t r : group) rows += requests[r].batch;
  for (size_t i = 0; i < count; ++i) {
    const RequestInput& first = requests[group.front()].inputs[i];
    shapes_[i].assign(first.shape, first.shape + first.ndim);
    if (config.batching()) shapes_[i][0] = rows;
    uint64_t bytes = 0;
    for (size_t r : group) bytes += requests[r].inputs[i].byte_size;

    const void* data = nullptr;
    if (group.size() == 1 && placement.host_memory) data = single_host_buffer(first);
    if (data == nullptr) {
      uint8_t* gathered = gathered_[i].reserve(bytes);
      uint64_t offset = 0;
      for (size_t r : group) {
        copy_input(requests[r].inputs[i], gathered + offset);
        offset += requests[r].inputs[i].byte_size;
      }
      data = gathered;
    }
    if (!placement.host_memory && bytes > 0) {
      if (device_[i].size() < bytes) {
        device_[i].reset();
        check_omnirt(omnirt::Backend(placement.backend).malloc(placement.device, bytes, &device_[i]),
                     "allocating device memory for input '" + config.inputs[i].name + "'");
      }
      check_omnirt(
          omnirt_memcpy(placement.backend, device_[i].data(), data, bytes, OMNIRT_MEMCPY_HOST_TO_DEVICE),
          "copying input '" + config.inputs[i].name + "' to " + placement.text());
      data = device_[i].data();
    }

    DLTensor& t = tensors_[i];
    t = DLTensor{};
    t.data = const_cast<void*>(data);  // the module only reads its inputs
    t.device = DLDevice{static_cast<DLDeviceType>(placement.device_type), placement.device};
    t.ndim = static_cast<int32_t>(shapes_[i].size());
    t.dtype = *dlpack_type(config.inputs[i].datatype);  // parse_model_config admits only these
    t.shape = shapes_[i].data();
  }
  return tensors_;
}

ModuleOutputs::~ModuleOutputs() {
  for (size_t i = 0; i < count_ && i < slots_.size(); ++i) {
    if (slots_[i] != nullptr && slots_[i]->deleter != nullptr) slots_[i]->deleter(slots_[i]);
  }
}

DLManagedTensor** ModuleOutputs::slots(size_t capacity) {
  slots_.assign(capacity, nullptr);
  count_ = 0;
  return slots_.data();
}

const DLTensor& OutputStaging::on_host(const Placement& placement, const ModuleOutputs& outputs,
                                       size_t index) {
  const DLTensor& t = outputs.at(index);
  for (int32_t d = 0; t.strides != nullptr && d < t.ndim; ++d) {
    if (t.strides[d] < 0) {
      throw Error(TRITONSERVER_ERROR_INTERNAL,
                  "module output " + std::to_string(index) +
                      " has negative strides, which the omnirt backend cannot read");
    }
  }
  if (t.device.device_type == kDLCPU || t.device.device_type == kDLCUDAHost) return t;
  if (views_.size() < outputs.size()) {  // once per run at most: views handed out stay put
    copies_.resize(outputs.size());
    views_.resize(outputs.size());
  }
  const uint64_t bytes = span_bytes(t);
  uint8_t* copy = copies_[index].reserve(bytes);
  if (bytes > 0) {
    check_omnirt(omnirt_memcpy(placement.backend, copy, static_cast<const uint8_t*>(t.data) + t.byte_offset,
                               bytes, OMNIRT_MEMCPY_DEVICE_TO_HOST),
                 "copying module output " + std::to_string(index) + " from " + placement.text());
  }
  views_[index] = t;
  views_[index].data = copy;
  views_[index].byte_offset = 0;
  views_[index].device = DLDevice{kDLCPU, 0};
  return views_[index];
}

}  // namespace omnirt::triton
