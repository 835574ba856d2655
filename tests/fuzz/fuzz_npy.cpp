// omnirt-run's .npy reader on arbitrary bytes: a tensor whose bytes match its
// shape and dtype, or std::runtime_error naming the file; nothing else.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const omnirt::run::HostTensor tensor =
        omnirt::run::parse_npy(std::string(reinterpret_cast<const char*>(data), size), "fuzz.npy");
    const size_t element = (tensor.dtype.bits + 7) / 8;
    if (tensor.bytes.size() != static_cast<size_t>(tensor.numel()) * element) __builtin_trap();
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind("fuzz.npy: ", 0) != 0) __builtin_trap();
  }
  return 0;
}
