// IEEE half (f16) and bfloat16 (bf16) to and from float, rounding to nearest
// even: for backends that compute on 16-bit floats in float, and their tests.
#ifndef OMNIRT_PLUGIN_COMMON_HALF_FLOAT_H_
#define OMNIRT_PLUGIN_COMMON_HALF_FLOAT_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace omnirt::plugin_common {

namespace half_detail {
inline uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
}  // namespace half_detail

inline float half_to_float(uint16_t h) {
  using half_detail::float_of;
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const uint32_t exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ff;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) return float_of(sign | 0x7f800000u | (mantissa << 13));  // inf, nan
  return float_of(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

inline uint16_t float_to_half(float f) {
  using half_detail::float_of;
  uint32_t x = half_detail::bits_of(f);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return sign | 0x7c00 | (x > 0x7f800000u ? 0x200 : 0);  // inf, nan
  if (x >= 0x477ff000u) return sign | 0x7c00;  // rounds past 65504: inf
  if (x < 0x38800000u) {  // below the smallest normal half: a multiple of 2^-24
    return sign | static_cast<uint16_t>(std::nearbyint(float_of(x) * 16777216.0f));
  }
  // Rebias the exponent (127 - 15) and round the 13 dropped bits to nearest even.
  x += 0xc8000fffu + ((x >> 13) & 1);
  return sign | static_cast<uint16_t>(x >> 13);
}

inline float bf16_to_float(uint16_t b) { return half_detail::float_of(uint32_t(b) << 16); }

inline uint16_t float_to_bf16(float f) {
  const uint32_t x = half_detail::bits_of(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet nan
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_HALF_FLOAT_H_
