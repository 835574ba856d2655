// The host's reading of plugin text on arbitrary bytes and bounds: what comes
// out is UTF-8 without control characters, within the bound, and reads back
// unchanged; valid input comes out unchanged.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "plugin_text.h"

namespace {

// An independent check of "UTF-8 without control characters" (RFC 3629).
bool is_clean(const std::string& text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      n = 1;
      cp = c;
    } else if ((c & 0xE0) == 0xC0) {
      n = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n > text.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    const uint32_t shortest = n == 1 ? 0 : n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (cp < shortest || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) return false;
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t bound = data[0] * 8u + 1;  // 1..2041
  const bool cut_input = (data[1] & 1) != 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 2, size - 2);

  const omnirt::PluginText r = omnirt::repair_text(bytes, bound, cut_input);
  if (r.text.size() > bound || !is_clean(r.text)) __builtin_trap();
  if (!omnirt::repair_text(r.text, bound).clean()) __builtin_trap();  // reads back unchanged
  if (is_clean(bytes) && bytes.size() <= bound && r.text != bytes) __builtin_trap();

  // The bounded read of a NUL-terminated copy, and of a full buffer.
  const omnirt::PluginText read = omnirt::read_plugin_text(bytes.c_str(), bound);
  if (read.text.size() > bound || !is_clean(read.text)) __builtin_trap();
  std::vector<char> buffer(bytes.begin(), bytes.end());
  buffer.push_back('x');
  const omnirt::PluginText filled = omnirt::read_buffer_text(buffer.data(), buffer.size(), bound);
  if (filled.text.size() > bound || !is_clean(filled.text)) __builtin_trap();
  return 0;
}
