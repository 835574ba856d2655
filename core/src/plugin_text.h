// Text entering the host from plugins and from the file system, checked
// where it enters (backend.h, "Text"; decision 13): read with a bound,
// validated as UTF-8 without control characters, repaired where invalid and
// cut only on character boundaries.
#ifndef OMNIRT_CORE_PLUGIN_TEXT_H_
#define OMNIRT_CORE_PLUGIN_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace omnirt {

/// Longest path the host shows (PATH_MAX).
inline constexpr size_t kMaxPathText = 4096;

/// Text after the host's checks.
struct PluginText {
  /// UTF-8 without control characters, at most the bound it was read with.
  std::string text;
  /// Some bytes were escaped as \xNN: invalid UTF-8 or control characters.
  bool repaired = false;
  /// The text was longer than its bound (or had no NUL within it) and was cut.
  bool cut = false;

  /// True when the text was valid as given.
  bool clean() const noexcept { return !repaired && !cut; }
};

/// Repairs `bytes`: each byte that is not part of a valid UTF-8 character,
/// and each byte of a control character (U+0000-U+001F, U+007F-U+009F),
/// becomes the four characters \xNN; the result ends after the last whole
/// character or escape that fits in `max_bytes` (`cut` says so). When
/// `may_end_mid_character`, `bytes` may end inside a character something
/// else cut off (a full buffer, a bounded read): an incomplete sequence at
/// its very end is then dropped, not escaped.
PluginText repair_text(std::string_view bytes, size_t max_bytes, bool may_end_mid_character = false);

/// The NUL-terminated `text` (NULL reads as ""), reading no more than
/// max_bytes + 1 bytes of it, repaired as repair_text() does. Text without a
/// NUL within max_bytes counts as cut.
PluginText read_plugin_text(const char* text, size_t max_bytes);

/// What a plugin wrote into a host buffer of `capacity` bytes (the last
/// byte is forced to NUL first), repaired and cut to `max_bytes`. A full
/// buffer may end in a character the plugin cut in two: it is dropped.
PluginText read_buffer_text(char* buffer, size_t capacity, size_t max_bytes);

/// A path as the host shows it in records and messages: file names are any
/// bytes, so those that are not UTF-8 (and control characters) appear as \xNN.
std::string display_path(std::string_view path);

}  // namespace omnirt

#endif  // OMNIRT_CORE_PLUGIN_TEXT_H_
