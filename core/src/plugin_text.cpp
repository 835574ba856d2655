#include "plugin_text.h"

#include <cstdint>
#include <cstring>

namespace omnirt {
namespace {

bool is_continuation(unsigned char byte) noexcept { return (byte & 0xC0) == 0x80; }

// Length of the valid character starting at bytes[0] (RFC 3629: shortest
// form, no surrogates, at most U+10FFFF), or 0 when there is none. When the
// bytes end inside an otherwise valid character, *incomplete is set.
size_t character_length(std::string_view bytes, bool* incomplete) noexcept {
  const auto at = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  const unsigned char lead = at(0);
  size_t length = 0;
  unsigned char low = 0x80;  // allowed range of the second byte
  unsigned char high = 0xBF;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  for (size_t i = 1; i < length; ++i) {
    if (i >= bytes.size()) {
      *incomplete = true;
      return 0;
    }
    const unsigned char byte = at(i);
    if (i == 1 ? (byte < low || byte > high) : !is_continuation(byte)) return 0;
  }
  return length;
}

// C0 controls and DEL (one byte), C1 controls (U+0080-U+009F: C2 80..C2 9F).
bool is_control(std::string_view character) noexcept {
  const auto lead = static_cast<unsigned char>(character[0]);
  if (character.size() == 1) return lead < 0x20 || lead == 0x7F;
  return character.size() == 2 && lead == 0xC2 && static_cast<unsigned char>(character[1]) <= 0x9F;
}

void append_escape(unsigned char byte, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  const char escape[4] = {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xF]};
  out->append(escape, sizeof escape);
}

}  // namespace

PluginText repair_text(std::string_view bytes, size_t max_bytes, bool may_end_mid_character) {
  PluginText result;
  std::string& out = result.text;
  out.reserve(bytes.size() < max_bytes ? bytes.size() : max_bytes);
  std::string escaped;
  size_t i = 0;
  while (i < bytes.size()) {
    bool incomplete = false;
    const size_t length = character_length(bytes.substr(i), &incomplete);
    if (incomplete && may_end_mid_character) break;  // the tail of a character cut off before us
    std::string_view piece;
    if (length == 0 || is_control(bytes.substr(i, length))) {
      escaped.clear();
      const size_t bad = length == 0 ? 1 : length;
      for (size_t k = 0; k < bad; ++k) append_escape(static_cast<unsigned char>(bytes[i + k]), &escaped);
      piece = escaped;
      i += bad;
      result.repaired = true;
    } else {
      piece = bytes.substr(i, length);
      i += length;
    }
    if (out.size() + piece.size() > max_bytes) {
      result.cut = true;
      break;
    }
    out.append(piece);
  }
  return result;
}

PluginText read_plugin_text(const char* text, size_t max_bytes) {
  if (text == nullptr) return {};
  const size_t length = strnlen(text, max_bytes + 1);
  if (length <= max_bytes) return repair_text(std::string_view(text, length), max_bytes);
  PluginText result = repair_text(std::string_view(text, max_bytes), max_bytes, true);
  result.cut = true;
  return result;
}

PluginText read_buffer_text(char* buffer, size_t capacity, size_t max_bytes) {
  if (buffer == nullptr || capacity == 0) return {};
  buffer[capacity - 1] = '\0';
  const size_t length = strlen(buffer);
  return repair_text(std::string_view(buffer, length), max_bytes, length == capacity - 1);
}

std::string display_path(std::string_view path) { return repair_text(path, kMaxPathText).text; }

}  // namespace omnirt
