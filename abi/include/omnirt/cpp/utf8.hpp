// OmniRT — cutting UTF-8 text on character boundaries (header-only, C++17).
//
// Shared by the C++ plugin helper (plugin.hpp), which copies a backend's
// text into the host's buffers, and by the host, which copies text into an
// embedder's buffers: neither may leave half a character at the end.
#ifndef OMNIRT_CPP_UTF8_HPP_
#define OMNIRT_CPP_UTF8_HPP_

#include <cstddef>
#include <cstring>
#include <string_view>

namespace omnirt::utf8 {

/// The longest prefix of `text` of at most `max_bytes` bytes that does not
/// end inside a character: `max_bytes` itself, backed up over the
/// continuation bytes (10xxxxxx) of the character it would cut.
inline size_t cut_point(std::string_view text, size_t max_bytes) noexcept {
  if (text.size() <= max_bytes) return text.size();
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return n;
}

/// Copies `text` NUL-terminated into `dst` (capacity bytes), cut, when it
/// does not fit, at the last character boundary that does.
inline void copy_text(char* dst, size_t capacity, std::string_view text) noexcept {
  if (dst == nullptr || capacity == 0) return;
  const size_t n = cut_point(text, capacity - 1);
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

}  // namespace omnirt::utf8

#endif  // OMNIRT_CPP_UTF8_HPP_
