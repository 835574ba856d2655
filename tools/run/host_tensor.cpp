#include "host_tensor.h"

namespace omnirt::run {
namespace {

struct Named {
  const char* name;
  DLDataType dtype;
};
const Named kDtypes[] = {
    {"f32", {kDLFloat, 32, 1}},   {"f64", {kDLFloat, 64, 1}}, {"f16", {kDLFloat, 16, 1}},
    {"bf16", {kDLBfloat, 16, 1}}, {"i8", {kDLInt, 8, 1}},     {"i16", {kDLInt, 16, 1}},
    {"i32", {kDLInt, 32, 1}},     {"i64", {kDLInt, 64, 1}},   {"u8", {kDLUInt, 8, 1}},
    {"bool", {OMNIRT_DL_BOOL, 8, 1}},
};

}  // namespace

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

DLTensor HostTensor::view() {
  DLTensor t{};
  t.data = bytes.empty() ? nullptr : bytes.data();
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = dtype;
  t.shape = shape.data();
  return t;
}

std::optional<uint64_t> compact_bytes(const std::vector<int64_t>& shape, DLDataType dtype) {
  uint64_t bytes = (dtype.bits * uint64_t{dtype.lanes} + 7) / 8;
  for (const int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes)) return std::nullopt;
  }
  return bytes;
}

bool parse_dtype(const std::string& text, DLDataType* dtype) {
  for (const Named& n : kDtypes) {
    if (text == n.name) {
      *dtype = n.dtype;
      return true;
    }
  }
  return false;
}

}  // namespace omnirt::run
