// Sized structs handed out to embedders (decision 2).
#ifndef OMNIRT_CORE_SIZED_H_
#define OMNIRT_CORE_SIZED_H_

#include <algorithm>
#include <cstring>

#include "error.h"

namespace omnirt {

/// A zeroed T whose struct_size is sizeof(T).
template <class T>
T sized_struct() noexcept {
  T value;
  std::memset(static_cast<void*>(&value), 0, sizeof(T));
  value.struct_size = sizeof(T);
  return value;
}

/// Copies `full` into the caller's struct `out`, writing only the bytes both
/// sides know (the smaller of out->struct_size and sizeof(T)), and sets
/// out->struct_size to that number so that a caller built against a newer,
/// larger struct can tell which fields were written. `type` names T in the
/// error for a struct_size too small to hold even itself.
template <class T>
omnirt_status write_sized(T* out, const T& full, const char* call, const char* type) noexcept {
  if (out == nullptr) return null_argument(call, "out");
  const size_t caller_size = out->struct_size;
  if (caller_size < sizeof(out->struct_size)) {
    return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: struct_size is {}; set it to sizeof({})",
                call, caller_size, type);
  }
  const size_t written = std::min(caller_size, sizeof(T));
  std::memcpy(static_cast<void*>(out), &full, written);
  out->struct_size = written;
  return OMNIRT_STATUS_OK;
}

}  // namespace omnirt

#endif  // OMNIRT_CORE_SIZED_H_
