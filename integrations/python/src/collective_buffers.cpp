#include "collective_buffers.h"

#include <optional>

#include "errors.h"
#include "names.h"
#include "omnirt/cpp/host.hpp"
#include "tensor.h"

namespace omnirt_py {
namespace {

constexpr const char* kTakenDtypes =
    "float32, float16, bfloat16, float64, int8, int16, int32, int64, uint8, bool";

std::optional<int32_t> omnirt_dtype_of(DLDataType t) {
  if (t.lanes != 1) return std::nullopt;
  switch (t.code) {
    case kDLFloat:
      if (t.bits == 32) return OMNIRT_DTYPE_F32;
      if (t.bits == 16) return OMNIRT_DTYPE_F16;
      if (t.bits == 64) return OMNIRT_DTYPE_F64;
      break;
    case kDLBfloat:
      if (t.bits == 16) return OMNIRT_DTYPE_BF16;
      break;
    case kDLInt:
      if (t.bits == 8) return OMNIRT_DTYPE_I8;
      if (t.bits == 16) return OMNIRT_DTYPE_I16;
      if (t.bits == 32) return OMNIRT_DTYPE_I32;
      if (t.bits == 64) return OMNIRT_DTYPE_I64;
      break;
    case kDLUInt:
      if (t.bits == 8) return OMNIRT_DTYPE_U8;
      break;
    case OMNIRT_DL_BOOL:
      if (t.bits == 8) return OMNIRT_DTYPE_BOOL;
      break;
    default: break;
  }
  return std::nullopt;
}

std::string device_name(DLDevice device) {
  return std::string(omnirt_probe::device_type_name(device.device_type)) + ":" +
         std::to_string(device.device_id);
}

[[noreturn]] void refuse(CollectiveArg arg, const std::string& why) {
  raise_error(OMNIRT_STATUS_INVALID_ARGUMENT, std::string(arg.call) + ": " + arg.name + " " + why);
}

}  // namespace

CollectiveBuffer collective_buffer(const DLTensor& tensor, int32_t device_type, int32_t device,
                                   CollectiveArg arg) {
  const DLDevice expected{static_cast<DLDeviceType>(device_type), device};
  if (tensor.device.device_type != expected.device_type || tensor.device.device_id != device) {
    refuse(arg, "is on " + device_name(tensor.device) + ", the communicator's device is " +
                    device_name(expected));
  }
  const std::optional<int32_t> dtype = omnirt_dtype_of(tensor.dtype);
  if (!dtype) {
    refuse(arg, "has dtype " + dtype_name(tensor.dtype) + ", which collectives do not take (" +
                    kTakenDtypes + ")");
  }
  if (!omnirt::is_compact(tensor)) {
    refuse(arg,
           "is not contiguous (collectives take dense row-major tensors: torch's "
           ".contiguous(), numpy's ascontiguousarray)");
  }
  size_t count = 1;
  for (int32_t d = 0; d < tensor.ndim; ++d) count *= static_cast<size_t>(tensor.shape[d]);
  return CollectiveBuffer{static_cast<char*>(tensor.data) + tensor.byte_offset, count, *dtype,
                          tensor.dtype};
}

void require_shape(const CollectiveBuffer& buffer, CollectiveArg arg, const CollectiveBuffer& like,
                   const char* like_name, size_t count, const std::string& why) {
  if (buffer.dtype != like.dtype) {
    refuse(arg, "has dtype " + dtype_name(buffer.dl_dtype) + ", " + like_name + " " +
                    dtype_name(like.dl_dtype) + "; they must match");
  }
  if (buffer.count != count) {
    refuse(arg, "has " + std::to_string(buffer.count) + " elements; it needs " +
                    std::to_string(count) + ", " + why);
  }
}

int32_t parse_reduce_op(const std::string& word, const char* call) {
  static const char* const kNames[] = {"sum", "prod", "min", "max", "avg"};  // by omnirt_reduce_op
  static_assert(OMNIRT_REDUCE_AVG == 4);
  for (int32_t op = 0; op <= OMNIRT_REDUCE_AVG; ++op) {
    if (word == kNames[op]) return op;
  }
  raise_error(OMNIRT_STATUS_INVALID_ARGUMENT, std::string(call) +
                                                  ": op must be 'sum', 'prod', "
                                                  "'min', 'max' or 'avg', got '" +
                                                  word + "'");
}

}  // namespace omnirt_py
