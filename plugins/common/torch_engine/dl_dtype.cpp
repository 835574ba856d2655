#include "dl_dtype.h"

#include "cpu/engine/dlpack_text.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::torch_common {

DLDataType canonical(DLDataType dtype) {
  if (dtype.code == kDLUInt && dtype.bits == 1 && dtype.lanes == 1) {
    return DLDataType{OMNIRT_DL_BOOL, 8, 1};
  }
  return dtype;
}

std::optional<at::ScalarType> scalar_type(DLDataType dtype, std::string* why) {
  const DLDataType t = canonical(dtype);
  if (t.code == OMNIRT_DL_BOOL && t.bits == 8 && t.lanes == 1) return at::kBool;
  // libtorch's own table for the rest: what it takes follows its version
  // (2.x adds uint16/32/64 and the float8 codes to 1.13's).
  try {
    return at::toScalarType(t);
  } catch (const c10::Error& e) {
    *why = e.what_without_backtrace();
    return std::nullopt;
  }
}

void refuse_dtype(const std::string& who, DLDataType dtype, const std::string& why) {
  plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, who + ": dtype " + cpu::dtype_text(dtype) +
                                                   " is not supported (libtorch: " + why + ")");
}

DLDataType dl_dtype(const at::Tensor& tensor, const std::string& name) {
  if (tensor.scalar_type() == at::kBool) return DLDataType{OMNIRT_DL_BOOL, 8, 1};
  try {
    return at::getDLDataType(tensor);
  } catch (const c10::Error& e) {
    const std::string who = name.empty() ? "an output" : "output '" + name + "'";
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, who + ": dtype " +
                                                     std::string(c10::toString(tensor.scalar_type())) +
                                                     " has no DLPack type (libtorch: " +
                                                     e.what_without_backtrace() + ")");
  }
}

}  // namespace omnirt::torch_common
