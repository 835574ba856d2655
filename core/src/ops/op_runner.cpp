#include "ops/op_runner.h"

#include "error.h"
#include "module/tensor.h"

namespace omnirt::ops {
namespace {

// One output: the managed tensor, its shape storage and who frees its data.
struct OwnedOutput {
  DLManagedTensor managed{};
  std::vector<int64_t> shape;
  omnirt_backend* backend = nullptr;
  int32_t device = 0;
};

void release_output(DLManagedTensor* self) {
  auto* owned = static_cast<OwnedOutput*>(self->manager_ctx);
  omnirt_free(owned->backend, owned->device, owned->managed.dl_tensor.data);
  delete owned;
}

class OpRunner final : public wrap::Runner {
 public:
  OpRunner(omnirt_backend& owner, int32_t device, const Lookup& lookup, std::string name,
           const omnirt_op_attr* attrs, size_t num_attrs)
      : owner_(owner), device_(device), lookup_(lookup), name_(std::move(name)) {
    for (size_t i = 0; i < num_attrs; ++i) {
      attr_names_.emplace_back(attrs[i].name != nullptr ? attrs[i].name : "");
    }
    for (size_t i = 0; i < num_attrs; ++i) {
      attrs_.push_back(omnirt_op_attr{attr_names_[i].c_str(), attrs[i].value});
    }
  }

  omnirt_status run(const DLTensor* inputs, size_t num_inputs, omnirt_stream* stream,
                    DLManagedTensor** outputs, size_t output_capacity,
                    size_t* num_outputs) override {
    const int32_t want_inputs = lookup_.decl.num_inputs;
    if (num_inputs == 0 || (want_inputs >= 0 && num_inputs != static_cast<size_t>(want_inputs))) {
      return record_error(OMNIRT_STATUS_INVALID_ARGUMENT,
                          "op '" + name_ + "': expected " + std::to_string(want_inputs) +
                              " inputs, got " + std::to_string(num_inputs),
                          owner_.name);
    }
    const size_t count = lookup_.decl.num_outputs > 0 ? lookup_.decl.num_outputs : 0;
    *num_outputs = count;
    if (output_capacity < count) {
      return record_error(OMNIRT_STATUS_OUT_OF_RANGE,
                          "op '" + name_ + "' has " + std::to_string(count) +
                              " outputs, output_capacity is " + std::to_string(output_capacity),
                          owner_.name);
    }
    std::vector<DLManagedTensor*> made;
    std::vector<DLTensor> views;
    for (size_t i = 0; i < count; ++i) {
      DLManagedTensor* out = nullptr;
      if (omnirt_status s = allocate_like(inputs[0], &out)) {
        release_all(made);
        return s;
      }
      made.push_back(out);
      views.push_back(out->dl_tensor);
    }
    const omnirt_status status = ops::run(owner_, lookup_, name_, inputs, num_inputs, views.data(),
                                          views.size(), attrs_.data(), attrs_.size(), stream);
    if (status != OMNIRT_STATUS_OK) {
      release_all(made);
      return status;
    }
    for (size_t i = 0; i < count; ++i) outputs[i] = made[i];
    return OMNIRT_STATUS_OK;
  }

 private:
  omnirt_status allocate_like(const DLTensor& like, DLManagedTensor** out) {
    auto owned = std::make_unique<OwnedOutput>();
    owned->shape.assign(like.shape, like.shape + like.ndim);
    owned->backend = &owner_;
    owned->device = device_;
    DLTensor& t = owned->managed.dl_tensor;
    t.ndim = like.ndim;
    t.shape = owned->shape.data();
    t.dtype = like.dtype;
    t.device = DLDevice{like.device.device_type, device_};
    OMNIRT_RETURN_IF_ERROR(omnirt_malloc(&owner_, device_, tensor::nbytes(t), &t.data));
    owned->managed.manager_ctx = owned.get();
    owned->managed.deleter = &release_output;
    *out = &owned.release()->managed;
    return OMNIRT_STATUS_OK;
  }

  static void release_all(const std::vector<DLManagedTensor*>& tensors) {
    for (DLManagedTensor* t : tensors) t->deleter(t);
  }

  omnirt_backend& owner_;
  int32_t device_;
  Lookup lookup_;
  std::string name_;
  std::vector<std::string> attr_names_;
  std::vector<omnirt_op_attr> attrs_;
};

}  // namespace

std::unique_ptr<wrap::Runner> make_op_runner(omnirt_backend& owner, int32_t device,
                                             const Lookup& lookup, const std::string& name,
                                             const omnirt_op_attr* attrs, size_t num_attrs) {
  return std::make_unique<OpRunner>(owner, device, lookup, name, attrs, num_attrs);
}

}  // namespace omnirt::ops
