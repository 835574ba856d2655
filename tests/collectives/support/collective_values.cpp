#include "collective_values.h"

#include <cmath>
#include <cstring>

#include "omnirt_plugin_common/half_float.h"

namespace omnirt_test {
namespace {

using omnirt::plugin_common::bf16_to_float;
using omnirt::plugin_common::float_to_bf16;
using omnirt::plugin_common::float_to_half;
using omnirt::plugin_common::half_to_float;

bool is_signed(int32_t dtype) { return dtype != OMNIRT_DTYPE_U8 && dtype != OMNIRT_DTYPE_BOOL; }

template <class T>
void store(T value, void* element) {
  std::memcpy(element, &value, sizeof value);
}

template <class T>
T load(const void* element) {
  T value;
  std::memcpy(&value, element, sizeof value);
  return value;
}

void encode(int32_t dtype, double v, void* element) {
  switch (dtype) {
    case OMNIRT_DTYPE_F32: return store(static_cast<float>(v), element);
    case OMNIRT_DTYPE_F16: return store(float_to_half(static_cast<float>(v)), element);
    case OMNIRT_DTYPE_BF16: return store(float_to_bf16(static_cast<float>(v)), element);
    case OMNIRT_DTYPE_F64: return store(v, element);
    case OMNIRT_DTYPE_I8: return store(static_cast<int8_t>(v), element);
    case OMNIRT_DTYPE_I16: return store(static_cast<int16_t>(v), element);
    case OMNIRT_DTYPE_I32: return store(static_cast<int32_t>(v), element);
    case OMNIRT_DTYPE_I64: return store(static_cast<int64_t>(v), element);
    case OMNIRT_DTYPE_U8: return store(static_cast<uint8_t>(v), element);
    default: return store(static_cast<uint8_t>(v != 0), element);
  }
}

double decode(int32_t dtype, const void* element) {
  switch (dtype) {
    case OMNIRT_DTYPE_F32: return load<float>(element);
    case OMNIRT_DTYPE_F16: return half_to_float(load<uint16_t>(element));
    case OMNIRT_DTYPE_BF16: return bf16_to_float(load<uint16_t>(element));
    case OMNIRT_DTYPE_F64: return load<double>(element);
    case OMNIRT_DTYPE_I8: return load<int8_t>(element);
    case OMNIRT_DTYPE_I16: return load<int16_t>(element);
    case OMNIRT_DTYPE_I32: return load<int32_t>(element);
    case OMNIRT_DTYPE_I64: return static_cast<double>(load<int64_t>(element));
    case OMNIRT_DTYPE_U8: return load<uint8_t>(element);
    default: return load<uint8_t>(element);
  }
}

}  // namespace

std::vector<int32_t> all_dtypes() {
  std::vector<int32_t> dtypes;
  for (int32_t d = 0; d < OMNIRT_DTYPE_COUNT_1_0; ++d) dtypes.push_back(d);
  return dtypes;
}

std::vector<int32_t> reductions_of(int32_t dtype) {
  std::vector<int32_t> ops = {OMNIRT_REDUCE_SUM, OMNIRT_REDUCE_PROD, OMNIRT_REDUCE_MIN, OMNIRT_REDUCE_MAX};
  if (dtype != OMNIRT_DTYPE_BOOL) ops.push_back(OMNIRT_REDUCE_AVG);
  return ops;
}

double input_value(int32_t dtype, int32_t op, int rank, size_t i) {
  const auto r = static_cast<size_t>(rank);
  if (dtype == OMNIRT_DTYPE_BOOL) return double(((i + r) % 3) != 0);
  const bool sign = is_signed(dtype);
  switch (op) {
    case OMNIRT_REDUCE_SUM:
    case OMNIRT_REDUCE_AVG: {  // |sum| <= 4 * 8 over 4 ranks
      const double v = double((i * 7 + r * 3) % 9);
      return sign ? v - 4 : v;
    }
    case OMNIRT_REDUCE_PROD: {  // |product| <= 16 over 4 ranks
      static const double kSigned[] = {-1, 1, 2};
      return sign ? kSigned[(i + r) % 3] : double(1 + (i + r) % 2);
    }
    case OMNIRT_REDUCE_MIN:
    case OMNIRT_REDUCE_MAX: {
      const double v = double((i * 5 + r * 11) % 23);
      return sign ? v - 11 : v;
    }
    default:  // data that is only moved
      return double((i * 13 + r * 5) % 97);
  }
}

double reduced_value(int32_t dtype, int32_t op, int nranks, size_t i) {
  double result = input_value(dtype, op, 0, i);
  for (int rank = 1; rank < nranks; ++rank) {
    const double v = input_value(dtype, op, rank, i);
    switch (op) {
      case OMNIRT_REDUCE_PROD: result *= v; break;
      case OMNIRT_REDUCE_MIN: result = std::min(result, v); break;
      case OMNIRT_REDUCE_MAX: result = std::max(result, v); break;
      default: result += v; break;
    }
  }
  if (dtype == OMNIRT_DTYPE_BOOL) return double(result != 0);  // or: sum, max; and: prod, min
  if (op == OMNIRT_REDUCE_AVG) {
    result /= nranks;
    const bool integer = dtype != OMNIRT_DTYPE_F32 && dtype != OMNIRT_DTYPE_F64 &&
                         dtype != OMNIRT_DTYPE_F16 && dtype != OMNIRT_DTYPE_BF16;
    if (integer) result = std::trunc(result);
  }
  return result;
}

std::vector<uint8_t> make_input(int32_t dtype, int32_t op, int rank, size_t count, size_t first) {
  const size_t size = dtype_size(dtype);
  std::vector<uint8_t> bytes(count * size);
  for (size_t i = 0; i < count; ++i) encode(dtype, input_value(dtype, op, rank, first + i), &bytes[i * size]);
  return bytes;
}

std::string check_elements(int32_t dtype, const void* data, size_t count,
                           const std::function<double(size_t)>& expected, const std::string& what) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  const size_t size = dtype_size(dtype);
  for (size_t i = 0; i < count; ++i) {
    const double got = decode(dtype, bytes + i * size);
    const double want = expected(i);
    if (got != want) {
      return what + ": element " + std::to_string(i) + " of " + std::to_string(count) + " is " +
             std::to_string(got) + ", expected " + std::to_string(want);
    }
  }
  return "";
}

}  // namespace omnirt_test
