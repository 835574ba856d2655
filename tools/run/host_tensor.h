// A tensor in host memory owned by omnirt-run (inputs it makes or reads,
// outputs it copies back), viewable as a DLTensor.
#pragma once

#include "omnirt/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace omnirt::run {

struct HostTensor {
  std::vector<int64_t> shape;
  DLDataType dtype{kDLFloat, 32, 1};
  std::vector<uint8_t> bytes;

  int64_t numel() const;
  /// A view on this tensor's memory (valid while the tensor is alive and unchanged).
  DLTensor view();
};

/// "f32", "f64", "i32", "i64", "u8", "bool", "f16", "bf16" -> dtype; false if unknown.
bool parse_dtype(const std::string& text, DLDataType* dtype);

/// Bytes of a compact tensor of `shape` and `dtype`; nothing when that does
/// not fit in 64 bits.
std::optional<uint64_t> compact_bytes(const std::vector<int64_t>& shape, DLDataType dtype);

}  // namespace omnirt::run
