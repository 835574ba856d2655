#include "inputs.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>

namespace omnirt::run {
namespace {

template <class T, class Dist>
void fill(HostTensor& tensor, std::mt19937_64& gen, Dist dist) {
  auto* data = reinterpret_cast<T*>(tensor.bytes.data());
  for (int64_t i = 0; i < tensor.numel(); ++i) data[i] = static_cast<T>(dist(gen));
}

// IEEE half / bfloat16 bits of a float (round to nearest even; no NaN/Inf here).
uint16_t to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}
uint16_t to_f16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const uint32_t sign = (bits >> 16) & 0x8000;
  const int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  const uint32_t mantissa = bits & 0x7fffff;
  if (exponent <= 0) return static_cast<uint16_t>(sign);  // tiny values flush to zero
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13));
}

std::string gib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return text;
}

uint64_t machine_memory_bytes() {
  return static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
}

}  // namespace

HostTensor parse_input_spec(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string dims = spec.substr(0, colon);
  const std::string dtype = colon == std::string::npos ? "f32" : spec.substr(colon + 1);
  HostTensor tensor;
  if (!parse_dtype(dtype, &tensor.dtype)) {
    throw std::invalid_argument("input '" + spec + "': unknown dtype '" + dtype +
                                "' (use f32, f64, f16, bf16, i8, i16, i32, i64, u8, bool)");
  }
  if (dims != "scalar") {
    size_t start = 0;
    while (start <= dims.size()) {
      const size_t end = std::min(dims.find('x', start), dims.size());
      const std::string part = dims.substr(start, end - start);
      if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos ||
          part.size() > 12) {
        throw std::invalid_argument("input '" + spec +
                                    "': shape must be dimensions joined by 'x', like 1x3x224x224");
      }
      tensor.shape.push_back(std::stoll(part));
      start = end + 1;
    }
  }
  // omnirt-run makes each input in host memory first: say so before asking for it.
  const std::optional<uint64_t> bytes = compact_bytes(tensor.shape, tensor.dtype);
  if (!bytes) {
    throw std::invalid_argument("input '" + spec + "': its size in bytes does not fit in 64 bits");
  }
  if (*bytes > machine_memory_bytes()) {
    throw std::invalid_argument("input '" + spec + "' needs " + std::to_string(*bytes) + " bytes (" +
                                gib(*bytes) + "), more than this machine's memory (" +
                                gib(machine_memory_bytes()) + ")");
  }
  tensor.bytes.resize(static_cast<size_t>(*bytes));
  return tensor;
}

void fill_random(HostTensor& tensor, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(0, 9);
  const DLDataType t = tensor.dtype;
  if (t.code == kDLFloat && t.bits == 32) return fill<float>(tensor, gen, real);
  if (t.code == kDLFloat && t.bits == 64) return fill<double>(tensor, gen, real);
  if (t.code == kDLFloat && t.bits == 16)
    return fill<uint16_t>(tensor, gen, [&](auto& g) { return to_f16(real(g)); });
  if (t.code == kDLBfloat)
    return fill<uint16_t>(tensor, gen, [&](auto& g) { return to_bf16(real(g)); });
  if (t.code == OMNIRT_DL_BOOL)
    return fill<uint8_t>(tensor, gen, std::uniform_int_distribution<int>(0, 1));
  if (t.code == kDLUInt) return fill<uint8_t>(tensor, gen, small);
  if (t.bits == 8) return fill<int8_t>(tensor, gen, small);
  if (t.bits == 16) return fill<int16_t>(tensor, gen, small);
  if (t.bits == 32) return fill<int32_t>(tensor, gen, small);
  return fill<int64_t>(tensor, gen, small);
}

}  // namespace omnirt::run
