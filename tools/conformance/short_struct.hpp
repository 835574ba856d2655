// Rule 6: whoever fills a caller's sized struct writes only up to the
// struct_size the caller set, and leaves struct_size as the caller set it.
// check_short_struct() hands a fill call a struct whose struct_size is short,
// with canary bytes behind it, and says what went wrong.
#ifndef OMNIRT_CONFORMANCE_SHORT_STRUCT_HPP_
#define OMNIRT_CONFORMANCE_SHORT_STRUCT_HPP_

#include <omnirt/status.h>

#include <cstddef>
#include <cstring>
#include <string>

namespace omnirt::conformance {

// `fill(T*)` returns a status, stored in *status. Returns "" when nothing was
// written past `short_size` and struct_size was kept, else what happened.
template <class T, class Fill>
std::string check_short_struct(size_t short_size, omnirt_status* status, Fill&& fill) {
  constexpr unsigned char kCanary = 0xA5;
  constexpr size_t kSlack = 64;  // room for a plugin that writes a newer, larger struct
  alignas(T) unsigned char buffer[sizeof(T) + kSlack];
  std::memset(buffer, kCanary, sizeof buffer);
  std::memcpy(buffer, &short_size, sizeof short_size);
  *status = fill(reinterpret_cast<T*>(buffer));
  for (size_t i = short_size; i < sizeof buffer; ++i) {
    if (buffer[i] != kCanary) {
      return "wrote byte " + std::to_string(i) + " past the caller's struct_size " +
             std::to_string(short_size) + " (the full struct is " + std::to_string(sizeof(T)) +
             " bytes)";
    }
  }
  size_t kept = 0;
  std::memcpy(&kept, buffer, sizeof kept);
  if (kept != short_size) {
    return "changed struct_size from " + std::to_string(short_size) + " to " +
           std::to_string(kept);
  }
  return "";
}

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_SHORT_STRUCT_HPP_
