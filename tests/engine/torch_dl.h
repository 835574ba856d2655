// A DLTensor over an at::Tensor's memory, for the tests that use libtorch.
#ifndef OMNIRT_TESTS_ENGINE_TORCH_DL_H_
#define OMNIRT_TESTS_ENGINE_TORCH_DL_H_

#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>

#include "omnirt/types.h"

namespace omnirt::engine_testing {

// Valid while `t` lives; borrows its sizes and strides. Bool as
// OMNIRT_DL_BOOL, which libtorch 1.13's own table refuses.
inline DLTensor dl(const at::Tensor& t) {
  DLTensor d{};
  d.data = t.data_ptr();
  d.device = {kDLCPU, 0};
  d.ndim = static_cast<int32_t>(t.dim());
  d.dtype = t.scalar_type() == at::kBool ? DLDataType{OMNIRT_DL_BOOL, 8, 1} : at::getDLDataType(t);
  d.shape = const_cast<int64_t*>(t.sizes().data());
  d.strides = const_cast<int64_t*>(t.strides().data());
  return d;
}

// An engine output as a tensor that owns it: its deleter runs when the
// tensor dies. Bool (OMNIRT_DL_BOOL) by hand, which 1.13's fromDLPack refuses.
inline at::Tensor adopt(DLManagedTensor* t) {
  const DLTensor& d = t->dl_tensor;
  if (d.dtype.code != OMNIRT_DL_BOOL) return at::fromDLPack(t);
  const auto ndim = static_cast<size_t>(d.ndim);
  return at::from_blob(
      static_cast<char*>(d.data) + d.byte_offset, at::IntArrayRef(d.shape, ndim),
      at::IntArrayRef(d.strides, ndim), [t](void*) { t->deleter(t); }, at::kBool);
}

}  // namespace omnirt::engine_testing

#endif  // OMNIRT_TESTS_ENGINE_TORCH_DL_H_
