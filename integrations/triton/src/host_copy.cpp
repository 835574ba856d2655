#include "host_copy.h"

#include <cstring>
#include <vector>

namespace omnirt::triton {
namespace {

uint64_t element_bytes(const DLTensor& t) { return (uint64_t{t.dtype.bits} * t.dtype.lanes + 7) / 8; }

// Copies the block at `src` of dimensions [dim, ndim) element by element
// (innermost runs that are contiguous at once), advancing `dst`.
void copy_strided(const DLTensor& t, int32_t dim, const uint8_t* src, uint8_t*& dst, uint64_t esize) {
  if (dim == t.ndim) {
    std::memcpy(dst, src, esize);
    dst += esize;
    return;
  }
  const int64_t stride = t.strides[dim];
  if (dim == t.ndim - 1 && stride == 1) {
    const uint64_t n = static_cast<uint64_t>(t.shape[dim]) * esize;
    std::memcpy(dst, src, n);
    dst += n;
    return;
  }
  for (int64_t i = 0; i < t.shape[dim]; ++i) {
    copy_strided(t, dim + 1, src + static_cast<uint64_t>(i * stride) * esize, dst, esize);
  }
}

}  // namespace

uint64_t span_bytes(const DLTensor& t) {
  uint64_t last = 0;  // index of the last element, in elements
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] == 0) return 0;
  }
  for (int32_t d = 0; d < t.ndim; ++d) {
    int64_t stride = 1;
    if (t.strides != nullptr) {
      stride = t.strides[d];
    } else {
      for (int32_t inner = d + 1; inner < t.ndim; ++inner) stride *= t.shape[inner];
    }
    last += static_cast<uint64_t>((t.shape[d] - 1) * stride);
  }
  return (last + 1) * element_bytes(t);
}

void copy_rows(const DLTensor& src, int64_t first_row, int64_t rows, void* dst) {
  const uint64_t esize = element_bytes(src);
  const auto* base = static_cast<const uint8_t*>(src.data) + src.byte_offset;
  if (src.ndim == 0) {
    std::memcpy(dst, base, esize);
    return;
  }
  uint64_t row_elements = 1;
  for (int32_t d = 1; d < src.ndim; ++d) row_elements *= static_cast<uint64_t>(src.shape[d]);
  if (is_compact(src)) {
    std::memcpy(dst, base + static_cast<uint64_t>(first_row) * row_elements * esize,
                static_cast<uint64_t>(rows) * row_elements * esize);
    return;
  }
  // A view of just the rows asked for, walked by its strides.
  std::vector<int64_t> shape(src.shape, src.shape + src.ndim);
  shape[0] = rows;
  DLTensor view = src;
  view.shape = shape.data();
  auto* out = static_cast<uint8_t*>(dst);
  copy_strided(view, 0, base + static_cast<uint64_t>(first_row * src.strides[0]) * esize, out, esize);
}

}  // namespace omnirt::triton
