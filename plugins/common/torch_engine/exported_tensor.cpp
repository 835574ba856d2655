#include "exported_tensor.h"

namespace omnirt::torch_common {
namespace {

struct Exported {
  // First, so it goes last: what it keeps (e.g. the cuda engine's pool, which
  // then empties) outlives the tensor's memory.
  std::shared_ptr<void> keep;
  at::Tensor tensor;
  std::string name;
  const void* origin;
  DLManagedTensor managed{};
};

void release(DLManagedTensor* self) { delete static_cast<Exported*>(self->manager_ctx); }

}  // namespace

DLManagedTensor* export_tensor(at::Tensor tensor, std::string name, const void* origin,
                               std::shared_ptr<void> keep) {
  const DLDataType dtype = dl_dtype(tensor, name);
  auto* out = new Exported{std::move(keep), std::move(tensor), std::move(name), origin, {}};
  const at::Tensor& t = out->tensor;
  DLTensor& dl = out->managed.dl_tensor;
  dl.data = t.data_ptr();
  dl.device = t.is_cuda() ? DLDevice{kDLCUDA, static_cast<int32_t>(t.get_device())}
                          : DLDevice{kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = dtype;
  dl.shape = const_cast<int64_t*>(t.sizes().data());
  dl.strides = const_cast<int64_t*>(t.strides().data());
  dl.byte_offset = 0;
  out->managed.manager_ctx = out;
  out->managed.deleter = &release;
  return &out->managed;
}

const char* exported_name(const DLManagedTensor* output, const void* origin) {
  if (output == nullptr || output->deleter != &release) return nullptr;
  const auto* exported = static_cast<const Exported*>(output->manager_ctx);
  return exported->origin == origin ? exported->name.c_str() : nullptr;
}

}  // namespace omnirt::torch_common
