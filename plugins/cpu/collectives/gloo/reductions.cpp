#include "reductions.h"

#include <gloo/math.h>

#include "omnirt/types.h"
#include "omnirt_plugin_common/half_float.h"

namespace omnirt::cpu::gloo_lib {
namespace {

using plugin_common::bf16_to_float;
using plugin_common::float_to_bf16;
using plugin_common::float_to_half;
using plugin_common::half_to_float;

struct Sum {
  float operator()(float a, float b) const { return a + b; }
};
struct Prod {
  float operator()(float a, float b) const { return a * b; }
};
struct Min {
  float operator()(float a, float b) const { return b < a ? b : a; }
};
struct Max {
  float operator()(float a, float b) const { return a < b ? b : a; }
};

// A 16-bit float type computed in float: To/From convert.
template <float (*To)(uint16_t), uint16_t (*From)(float), class Op>
void reduce_16(void* out, const void* a, const void* b, size_t n) {
  auto* o = static_cast<uint16_t*>(out);
  const auto* x = static_cast<const uint16_t*>(a);
  const auto* y = static_cast<const uint16_t*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = From(Op()(To(x[i]), To(y[i])));
}

void bool_or(void* out, const void* a, const void* b, size_t n) {
  auto* o = static_cast<uint8_t*>(out);
  const auto* x = static_cast<const uint8_t*>(a);
  const auto* y = static_cast<const uint8_t*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = (x[i] != 0) | (y[i] != 0);
}

void bool_and(void* out, const void* a, const void* b, size_t n) {
  auto* o = static_cast<uint8_t*>(out);
  const auto* x = static_cast<const uint8_t*>(a);
  const auto* y = static_cast<const uint8_t*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = (x[i] != 0) & (y[i] != 0);
}

template <class T>
ReduceFunction native(int32_t op) {
  switch (op) {
    case OMNIRT_REDUCE_PROD: return &gloo::product<T>;
    case OMNIRT_REDUCE_MIN: return &gloo::min<T>;
    case OMNIRT_REDUCE_MAX: return &gloo::max<T>;
    default: return &gloo::sum<T>;  // sum, and avg before its division
  }
}

template <float (*To)(uint16_t), uint16_t (*From)(float)>
ReduceFunction sixteen_bit(int32_t op) {
  switch (op) {
    case OMNIRT_REDUCE_PROD: return &reduce_16<To, From, Prod>;
    case OMNIRT_REDUCE_MIN: return &reduce_16<To, From, Min>;
    case OMNIRT_REDUCE_MAX: return &reduce_16<To, From, Max>;
    default: return &reduce_16<To, From, Sum>;
  }
}

template <class T>
void divide_native(void* data, size_t count, int32_t divisor) {
  T* values = static_cast<T*>(data);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<T>(values[i] / static_cast<T>(divisor));
}

template <float (*To)(uint16_t), uint16_t (*From)(float)>
void divide_16(void* data, size_t count, int32_t divisor) {
  auto* values = static_cast<uint16_t*>(data);
  for (size_t i = 0; i < count; ++i) values[i] = From(To(values[i]) / static_cast<float>(divisor));
}

}  // namespace

ReduceFunction reduce_function(int32_t dtype, int32_t op) {
  switch (dtype) {
    case OMNIRT_DTYPE_F32: return native<float>(op);
    case OMNIRT_DTYPE_F64: return native<double>(op);
    case OMNIRT_DTYPE_I8: return native<int8_t>(op);
    case OMNIRT_DTYPE_I16: return native<int16_t>(op);
    case OMNIRT_DTYPE_I32: return native<int32_t>(op);
    case OMNIRT_DTYPE_I64: return native<int64_t>(op);
    case OMNIRT_DTYPE_U8: return native<uint8_t>(op);
    case OMNIRT_DTYPE_F16: return sixteen_bit<&half_to_float, &float_to_half>(op);
    case OMNIRT_DTYPE_BF16: return sixteen_bit<&bf16_to_float, &float_to_bf16>(op);
    default:  // bool
      return op == OMNIRT_REDUCE_PROD || op == OMNIRT_REDUCE_MIN ? &bool_and : &bool_or;
  }
}

void divide_by(void* data, size_t count, int32_t dtype, int32_t divisor) {
  switch (dtype) {
    case OMNIRT_DTYPE_F32: return divide_native<float>(data, count, divisor);
    case OMNIRT_DTYPE_F64: return divide_native<double>(data, count, divisor);
    case OMNIRT_DTYPE_I8: return divide_native<int8_t>(data, count, divisor);
    case OMNIRT_DTYPE_I16: return divide_native<int16_t>(data, count, divisor);
    case OMNIRT_DTYPE_I32: return divide_native<int32_t>(data, count, divisor);
    case OMNIRT_DTYPE_I64: return divide_native<int64_t>(data, count, divisor);
    case OMNIRT_DTYPE_U8: return divide_native<uint8_t>(data, count, divisor);
    case OMNIRT_DTYPE_F16: return divide_16<&half_to_float, &float_to_half>(data, count, divisor);
    case OMNIRT_DTYPE_BF16: return divide_16<&bf16_to_float, &float_to_bf16>(data, count, divisor);
    default: return;  // bool has no avg (refused by the plugin)
  }
}

}  // namespace omnirt::cpu::gloo_lib
