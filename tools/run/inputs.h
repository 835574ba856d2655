// Inputs of omnirt-run: "--input 1x3x224x224:f32" specs filled with seeded
// random values, or .npy files.
#pragma once

#include <cstdint>
#include <string>

#include "host_tensor.h"

namespace omnirt::run {

/// Parses "1x3x224x224:f32" ("f32" when the dtype is omitted; "scalar:f32"
/// for a 0-d tensor). Throws std::invalid_argument naming the spec.
HostTensor parse_input_spec(const std::string& spec);

/// Fills `tensor` with values from a generator seeded by `seed`: floats
/// uniform in [-1, 1), integers uniform in [0, 10), bools 0/1.
void fill_random(HostTensor& tensor, uint64_t seed);

}  // namespace omnirt::run
