// Human-readable DLPack dtypes and devices for error messages ("float32",
// "cuda:1"), shared by the engine and the op kernels. Header-only, no libtorch.
#ifndef OMNIRT_CPU_DLPACK_TEXT_H_
#define OMNIRT_CPU_DLPACK_TEXT_H_

#include <string>

#include "omnirt/types.h"

namespace omnirt::cpu {

inline std::string dtype_text(DLDataType t) {
  const bool one_byte_bool = t.lanes == 1 && ((t.code == OMNIRT_DL_BOOL && t.bits == 8) ||
                                              (t.code == kDLUInt && t.bits == 1));
  if (one_byte_bool) return "bool";
  const char* base = nullptr;
  switch (t.code) {
    case kDLInt: base = "int"; break;
    case kDLUInt: base = "uint"; break;
    case kDLFloat: base = "float"; break;
    case kDLBfloat: base = "bfloat"; break;
    case kDLComplex: base = "complex"; break;
    default:
      return "{code " + std::to_string(t.code) + ", bits " + std::to_string(t.bits) +
             ", lanes " + std::to_string(t.lanes) + "}";
  }
  std::string text = base + std::to_string(t.bits);
  if (t.lanes != 1) text += "x" + std::to_string(t.lanes);
  return text;
}

inline std::string device_text(DLDevice d) {
  std::string type;
  switch (d.device_type) {
    case kDLCPU: type = "cpu"; break;
    case kDLCUDA: type = "cuda"; break;
    case kDLCUDAHost: type = "cuda_host"; break;
    case kDLROCM: type = "rocm"; break;
    case kDLExtDev: type = "ext_dev"; break;
    default: type = "device_type " + std::to_string(d.device_type); break;
  }
  return type + ":" + std::to_string(d.device_id);
}

}  // namespace omnirt::cpu

#endif  // OMNIRT_CPU_DLPACK_TEXT_H_
