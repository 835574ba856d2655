// The host's reading of plugin text (core/src/plugin_text.h): valid text
// passes unchanged, invalid bytes and control characters become \xNN, cuts
// fall on character (or escape) boundaries, reads stop at the bound.
#include "plugin_text.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace omnirt {
namespace {

TEST(RepairText, ValidTextIsUnchanged) {
  const std::string text = "cuda 12.4 — ✓ 𝄞 日本";
  const PluginText r = repair_text(text, 1024);
  EXPECT_EQ(r.text, text);
  EXPECT_TRUE(r.clean());
}

TEST(RepairText, EachInvalidByteBecomesAnEscape) {
  struct Case {
    std::string in;
    std::string out;
  };
  const Case cases[] = {
      {"a\xFF" "b", R"(a\xFFb)"},                   // never valid
      {"\xC3(", R"(\xC3()"},                       // lead without continuation
      {"\xC0\xAF", R"(\xC0\xAF)"},                 // overlong '/'
      {"\xE0\x80\xAF", R"(\xE0\x80\xAF)"},         // overlong 3-byte
      {"\xED\xA0\x80", R"(\xED\xA0\x80)"},         // surrogate U+D800
      {"\xF4\x90\x80\x80", R"(\xF4\x90\x80\x80)"}, // above U+10FFFF
      {"\x80" "x", R"(\x80x)"},                    // stray continuation
      {"\xE2\x82", R"(\xE2\x82)"},                 // incomplete at the end, not cut
  };
  for (const Case& c : cases) {
    const PluginText r = repair_text(c.in, 1024);
    EXPECT_EQ(r.text, c.out);
    EXPECT_TRUE(r.repaired);
    EXPECT_FALSE(r.cut);
  }
}

TEST(RepairText, ControlCharactersAreEscaped) {
  EXPECT_EQ(repair_text("a\nb\tc\x1B[0m\x7F", 64).text, R"(a\x0Ab\x09c\x1B[0m\x7F)");
  EXPECT_EQ(repair_text("\xC2\x9B" "1m", 64).text, R"(\xC2\x9B1m)");  // C1 CSI
  EXPECT_EQ(repair_text("\xC2\xA0", 64).text, "\xC2\xA0");          // U+00A0 is not a control
}

TEST(RepairText, CutsAfterTheLastWholeCharacterOrEscape) {
  PluginText r = repair_text("ab\xC3\xA9" "cd", 3);  // "é" would end at byte 4
  EXPECT_EQ(r.text, "ab");
  EXPECT_TRUE(r.cut);
  r = repair_text("ab\xFF", 5);  // the escape needs 4 bytes, 3 are left
  EXPECT_EQ(r.text, "ab");
  EXPECT_TRUE(r.cut);
  r = repair_text("ab\xFF", 6);
  EXPECT_EQ(r.text, R"(ab\xFF)");
  EXPECT_FALSE(r.cut);
}

TEST(RepairText, ACharacterCutOffBeforeUsIsDropped) {
  const std::string cut_euro = "price \xE2\x82";  // "€" is E2 82 AC
  EXPECT_EQ(repair_text(cut_euro, 64, true).text, "price ");
  EXPECT_EQ(repair_text(cut_euro, 64, false).text, R"(price \xE2\x82)");
  EXPECT_EQ(repair_text("\xE2(", 64, true).text, R"(\xE2()");  // not a cut: invalid
}

// A string of `bytes` 'u's without a NUL, right before an unmapped page.
class GuardedText {
 public:
  explicit GuardedText(size_t bytes) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    pages_ = static_cast<char*>(mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_NE(pages_, MAP_FAILED);
    mprotect(pages_ + page_, page_, PROT_NONE);
    text_ = pages_ + page_ - bytes;
    std::memset(text_, 'u', bytes);
  }
  ~GuardedText() { munmap(pages_, 2 * page_); }
  const char* get() const { return text_; }

 private:
  size_t page_ = 0;
  char* pages_ = nullptr;
  char* text_ = nullptr;
};

TEST(ReadPluginText, ReadsNoFurtherThanTheBoundPlusOne) {
  const GuardedText text(33);
  const PluginText r = read_plugin_text(text.get(), 32);  // reads 33 bytes, finds no NUL
  EXPECT_EQ(r.text, std::string(32, 'u'));
  EXPECT_TRUE(r.cut);
}

TEST(ReadPluginText, NullIsEmptyAndShortTextIsWhole) {
  EXPECT_EQ(read_plugin_text(nullptr, 8).text, "");
  EXPECT_TRUE(read_plugin_text("12345678", 8).clean());
  EXPECT_TRUE(read_plugin_text("123456789", 8).cut);
}

TEST(ReadPluginText, ACharacterStraddlingTheBoundIsDropped) {
  const std::string text = "abc\xC3\xA9";  // 5 bytes; a bound of 4 cuts the é
  const PluginText r = read_plugin_text(text.c_str(), 4);
  EXPECT_EQ(r.text, "abc");
  EXPECT_TRUE(r.cut);
  EXPECT_FALSE(r.repaired);
}

TEST(ReadBufferText, AFullBufferWithoutNulIsTerminatedAndItsCutCharacterDropped) {
  char buffer[6] = {'a', 'b', 'c', '\xE2', '\x82', 'Z'};  // the host forces the last byte to NUL
  const PluginText r = read_buffer_text(buffer, sizeof buffer, 1024);
  EXPECT_EQ(r.text, "abc");
  EXPECT_EQ(buffer[5], '\0');
}

TEST(DisplayPath, FileNamesOfAnyBytesAreShownAsUtf8) {
  EXPECT_EQ(display_path("/opt/plugins/libomnirt_backend_cpu.so"), "/opt/plugins/libomnirt_backend_cpu.so");
  EXPECT_EQ(display_path("/tmp/odd \xFF\ndir/x.so"), R"(/tmp/odd \xFF\x0Adir/x.so)");
}

}  // namespace
}  // namespace omnirt
