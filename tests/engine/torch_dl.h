// A DLTensor over an at::Tensor's memory, for the tests that use libtorch.
#ifndef OMNIRT_TESTS_ENGINE_TORCH_DL_H_
#define OMNIRT_TESTS_ENGINE_TORCH_DL_H_

#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>

namespace omnirt::engine_testing {

// Valid while `t` lives; borrows its sizes and strides.
inline DLTensor dl(const at::Tensor& t) {
  DLTensor d{};
  d.data = t.data_ptr();
  d.device = {kDLCPU, 0};
  d.ndim = static_cast<int32_t>(t.dim());
  d.dtype = at::getDLDataType(t);
  d.shape = const_cast<int64_t*>(t.sizes().data());
  d.strides = const_cast<int64_t*>(t.strides().data());
  return d;
}

}  // namespace omnirt::engine_testing

#endif  // OMNIRT_TESTS_ENGINE_TORCH_DL_H_
