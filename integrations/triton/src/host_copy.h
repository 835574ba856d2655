// Copying rows of a (possibly strided) tensor in host memory into a compact
// buffer: how one request's part of a batched output reaches its response.
// Pure: no OmniRT or Triton call. Whether a tensor is compact is
// omnirt::is_compact (omnirt/cpp/host.hpp).
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>

#include "omnirt/cpp/host.hpp"

namespace omnirt::triton {

/// Bytes from the first to one past the last element `t` addresses, counted
/// from t.data + t.byte_offset: what must be copied to read it elsewhere.
/// Strides must be >= 0.
uint64_t span_bytes(const DLTensor& t);

/// Writes rows [first_row, first_row + rows) of `src` (along dimension 0; for
/// ndim 0 the one element, with first_row 0 and rows 1) compactly to `dst`.
/// `src` is in host memory with strides >= 0.
void copy_rows(const DLTensor& src, int64_t first_row, int64_t rows, void* dst);

}  // namespace omnirt::triton
