// Text from plugins (backend.h, "Text"): invalid UTF-8 and unterminated
// strings in every field, read in this process (vetting off, so a read past
// a bound would crash the test) and shown repaired, cut, or refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "omnirt/backend.h"
#include "test_support.h"

namespace omnirt_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// FAKE_INVALID_TEXT of fake_plugin.c as the host shows it.
const std::string kRepaired = R"(fake\xC3(bad\xFF\xC0\xAF\xED\xA0\x80\x1B[31mred\x0A)";
// An unterminated string as far as the host reads it: its bound of 'u's.
std::string unterminated(size_t bound) { return std::string(bound, 'u'); }

// True when `text` is UTF-8 without control characters (what the host promises).
bool is_clean_utf8(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t length = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (length == 0 || i + length > text.size() || c < 0x20 || c == 0x7F) return false;
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

omnirt_candidate record_of(omnirt_host* host, const char* plugin) {
  const auto record = candidate_at(host, plugin);
  EXPECT_TRUE(record.has_value());
  return record.value_or(omnirt_candidate{});
}

// Every host of these tests loads its plugins without vetting: the plugin's
// text is read here, in the test's own process.
class TextTest : public ::testing::Test {
 protected:
  TextTest() { write_file(config_, "vetting: off\nlog_level: error\n"); }

  // A host over `plugin` and the good one, which must load beside it.
  HostPtr host_with(const char* plugin) {
    HostPtr host = make_host({plugin, ZOO_GOOD}, kIsolated, config_.c_str());
    if (host) {
      omnirt_backend* good = nullptr;
      EXPECT_EQ(omnirt_host_get_backend(host.get(), "good", &good), OMNIRT_STATUS_OK) << last_message();
      EXPECT_EQ(record_of(host.get(), ZOO_GOOD).vet_outcome, OMNIRT_VET_NOT_VETTED);
    }
    return host;
  }

 private:
  TempDir dir_;
  const std::string config_ = dir_ / "omnirt.yaml";
};

omnirt_backend* backend_of(omnirt_host* host, const char* name) {
  omnirt_backend* backend = backend_named(host, name);
  EXPECT_NE(backend, nullptr) << name;
  return backend;
}

omnirt_capabilities capabilities_of(omnirt_backend* backend) {
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  EXPECT_EQ(omnirt_get_capabilities(backend, &caps), OMNIRT_STATUS_OK) << last_message();
  return caps;
}

TEST_F(TextTest, BadNameRejectsThePlugin) {
  HostPtr host = host_with(ZOO_TEXT_NAME_INVALID);
  omnirt_candidate c = record_of(host.get(), ZOO_TEXT_NAME_INVALID);
  EXPECT_EQ(c.loaded, 0);
  EXPECT_EQ(c.stage, OMNIRT_STAGE_NEGOTIATE);
  EXPECT_EQ(c.status, OMNIRT_STATUS_INCOMPATIBLE);
  // Repaired, then cut to the name's 32 bytes after a whole escape.
  EXPECT_EQ(std::string(c.reason),
            "vtable name '" + kRepaired.substr(0, 32) + "'... is not a valid backend name ([a-z0-9_]{1,32})");

  host = host_with(ZOO_TEXT_NAME_UNTERMINATED);
  c = record_of(host.get(), ZOO_TEXT_NAME_UNTERMINATED);
  EXPECT_EQ(c.loaded, 0);
  EXPECT_EQ(std::string(c.reason), "vtable name '" + unterminated(OMNIRT_TEXT_MAX_NAME) +
                                       "'... is not a valid backend name ([a-z0-9_]{1,32})");
}

TEST_F(TextTest, BadVersionRejectsThePlugin) {
  HostPtr host = host_with(ZOO_TEXT_VERSION_INVALID);
  omnirt_candidate c = record_of(host.get(), ZOO_TEXT_VERSION_INVALID);
  EXPECT_EQ(c.loaded, 0);
  EXPECT_EQ(c.stage, OMNIRT_STAGE_NEGOTIATE);
  EXPECT_THAT(c.reason, HasSubstr("vtable plugin_version '" + kRepaired + "' is not UTF-8 text of at most 64 bytes"));

  host = host_with(ZOO_TEXT_VERSION_UNTERMINATED);
  c = record_of(host.get(), ZOO_TEXT_VERSION_UNTERMINATED);
  EXPECT_EQ(c.loaded, 0);
  EXPECT_THAT(c.reason, HasSubstr("'" + unterminated(OMNIRT_TEXT_MAX_VERSION) + "'... is not UTF-8 text"));
}

TEST_F(TextTest, VendorAndModuleFormatsAreRepairedAndCut) {
  HostPtr host = host_with(ZOO_TEXT_VENDOR_INVALID);
  EXPECT_EQ(capabilities_of(backend_of(host.get(), "vendor_invalid")).vendor, kRepaired);
  host = host_with(ZOO_TEXT_VENDOR_UNTERMINATED);
  EXPECT_EQ(capabilities_of(backend_of(host.get(), "vendor_unterminated")).vendor,
            unterminated(OMNIRT_TEXT_MAX_TAG));

  host = host_with(ZOO_TEXT_FORMAT_INVALID);
  omnirt_capabilities caps = capabilities_of(backend_of(host.get(), "format_invalid"));
  ASSERT_EQ(caps.num_module_formats, 1u);
  EXPECT_EQ(caps.module_formats[0], kRepaired);
  host = host_with(ZOO_TEXT_FORMAT_UNTERMINATED);
  caps = capabilities_of(backend_of(host.get(), "format_unterminated"));
  ASSERT_EQ(caps.num_module_formats, 1u);
  EXPECT_EQ(caps.module_formats[0], unterminated(OMNIRT_TEXT_MAX_TAG));
}

TEST_F(TextTest, UnavailableReasonIsRepairedAndNeverReadPastTheBuffer) {
  HostPtr host = host_with(ZOO_TEXT_REASON_INVALID);
  omnirt_candidate c = record_of(host.get(), ZOO_TEXT_REASON_INVALID);
  EXPECT_EQ(c.status, OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_EQ(std::string(c.reason), kRepaired);
  EXPECT_EQ(std::string(info_of(backend_of(host.get(), "reason_invalid")).unavailable_reason), kRepaired);

  host = host_with(ZOO_TEXT_REASON_UNTERMINATED);  // the plugin filled the whole buffer, no NUL
  c = record_of(host.get(), ZOO_TEXT_REASON_UNTERMINATED);
  EXPECT_EQ(std::string(c.reason), unterminated(OMNIRT_TEXT_MAX_MESSAGE));
}

TEST_F(TextTest, ReasonThePluginCutInsideACharacterLosesThatCharacterOnly) {
  HostPtr host = host_with(ZOO_TEXT_MULTIBYTE);
  const std::string reason = record_of(host.get(), ZOO_TEXT_MULTIBYTE).reason;
  std::string expected = "x";
  for (int i = 0; i < 511; ++i) expected += "\xC3\xA9";  // 1023 bytes; the 512th é was cut in two
  EXPECT_EQ(reason, expected);
  EXPECT_TRUE(is_clean_utf8(reason));
}

TEST_F(TextTest, OpWithABadNameIsIgnoredAndTheOthersWork) {
  for (const char* plugin : {ZOO_TEXT_OP_NAME_INVALID, ZOO_TEXT_OP_NAME_UNTERMINATED}) {
    HostPtr host = host_with(plugin);
    const std::string name = std::filesystem::path(plugin).stem().string().substr(18);
    omnirt_backend* backend = backend_of(host.get(), name.c_str());
    omnirt_backend* implementer = nullptr;
    EXPECT_EQ(omnirt_op_resolve(backend, "fake_copy", &implementer), OMNIRT_STATUS_OK) << last_message();
    EXPECT_EQ(implementer, backend);
    EXPECT_EQ(omnirt_op_resolve(backend, unterminated(OMNIRT_TEXT_MAX_IDENTIFIER).c_str(), &implementer),
              OMNIRT_STATUS_NOT_SUPPORTED);
    size_t count = 99;
    EXPECT_EQ(omnirt_list_overridden_ops(backend, nullptr, 0, &count), OMNIRT_STATUS_OK);
    EXPECT_EQ(count, 0u);  // no base (cpu) backend in this host

    float in[4] = {1, 2, 3, 4};
    float out[4] = {};
    int64_t shape[1] = {4};
    DLTensor input{in, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
    DLTensor output{out, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
    ASSERT_EQ(omnirt_op_run(backend, "fake_copy", &input, 1, &output, 1, nullptr, 0, nullptr), OMNIRT_STATUS_OK)
        << last_message();
    EXPECT_EQ(out[3], 4.0f);
  }
}

TEST_F(TextTest, OpSetNamesAreRepairedAndCut) {
  const omnirt_op_set* sets = nullptr;
  size_t count = 0;
  HostPtr host = host_with(ZOO_TEXT_OP_SET_INVALID);
  ASSERT_EQ(omnirt_list_op_sets(backend_of(host.get(), "op_set_invalid"), &sets, &count), OMNIRT_STATUS_OK);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(sets[0].name, kRepaired);
  host = host_with(ZOO_TEXT_OP_SET_UNTERMINATED);
  ASSERT_EQ(omnirt_list_op_sets(backend_of(host.get(), "op_set_unterminated"), &sets, &count), OMNIRT_STATUS_OK);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(sets[0].name, unterminated(OMNIRT_TEXT_MAX_IDENTIFIER));
}

TEST_F(TextTest, ErrorMessagesAreRepairedAndCut) {
  HostPtr host = host_with(ZOO_TEXT_ERROR_INVALID);
  omnirt_candidate c = record_of(host.get(), ZOO_TEXT_ERROR_INVALID);
  EXPECT_EQ(c.loaded, 0);
  EXPECT_EQ(std::string(c.reason), "create failed: " + kRepaired);

  host = host_with(ZOO_TEXT_ERROR_UNTERMINATED);
  c = record_of(host.get(), ZOO_TEXT_ERROR_UNTERMINATED);
  EXPECT_EQ(std::string(c.reason), "create failed: " + unterminated(OMNIRT_TEXT_MAX_MESSAGE));
}

TEST_F(TextTest, LogLinesAreRepairedSoThatTheyCannotForgeLines) {
  ::testing::internal::CaptureStderr();
  host_with(ZOO_TEXT_LOG_INVALID);
  std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, HasSubstr("[error] [log_invalid] " + kRepaired + "\n"));
  EXPECT_EQ(log.find('\x1B'), std::string::npos);

  ::testing::internal::CaptureStderr();
  host_with(ZOO_TEXT_LOG_UNTERMINATED);
  log = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, HasSubstr("[log_unterminated] " + unterminated(OMNIRT_TEXT_MAX_MESSAGE) + "\n"));
}

TEST_F(TextTest, DeviceNamesAreRepairedAndTerminated) {
  for (const auto& [plugin, expected] :
       {std::pair<const char*, std::string>{ZOO_TEXT_DEVICE_NAME_INVALID, kRepaired},
        std::pair<const char*, std::string>{ZOO_TEXT_DEVICE_NAME_UNTERMINATED,
                                            unterminated(sizeof(omnirt_device_info::name) - 1)}}) {
    HostPtr host = host_with(plugin);
    const std::string name = std::filesystem::path(plugin).stem().string().substr(18);
    omnirt_device_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(omnirt_get_device_info(backend_of(host.get(), name.c_str()), 0, &info), OMNIRT_STATUS_OK);
    EXPECT_EQ(std::string(info.name), expected);
  }
}

TEST_F(TextTest, CollectiveLibraryTextIsRepairedAndCutOnABoundary) {
  HostPtr host = host_with(ZOO_TEXT_LIBRARY_INVALID);
  omnirt_backend* backend = backend_of(host.get(), "library_invalid");
  char text[256];
  ASSERT_EQ(omnirt_collectives_library(backend, text, sizeof text), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(std::string(text), kRepaired);
  char small[12];  // "fake\xC3(bad" is 11 bytes: the next escape does not fit
  ASSERT_EQ(omnirt_collectives_library(backend, small, sizeof small), OMNIRT_STATUS_OK);
  EXPECT_EQ(std::string(small), R"(fake\xC3(ba)");
  EXPECT_TRUE(is_clean_utf8(small));

  host = host_with(ZOO_TEXT_LIBRARY_UNTERMINATED);
  backend = backend_of(host.get(), "library_unterminated");
  ASSERT_EQ(omnirt_collectives_library(backend, text, sizeof text), OMNIRT_STATUS_OK);
  EXPECT_EQ(std::string(text), unterminated(sizeof text - 1));
}

TEST_F(TextTest, OddFileNamesAreShownAsUtf8AndTheGoodPluginsStillLoad) {
  TempDir dir;
  const std::string odd_dir = dir / "odd \xFF\xFE name\nwith newline";
  std::filesystem::create_directory(odd_dir);
  const std::string good = odd_dir + "/libomnirt_backend_good.so";
  copy_file(ZOO_GOOD, good);
  const std::string bad_name = dir / "libomnirt_backend_bad\xE9name.so";
  copy_file(ZOO_GOOD, bad_name);
  const std::string spaces = dir / "libomnirt_backend_with spaces.so";
  copy_file(ZOO_GOOD, spaces);
  const std::string long_name = dir / ("libomnirt_backend_" + std::string(230, 'l') + ".so");
  copy_file(ZOO_GOOD, long_name);

  HostPtr host = make_host({odd_dir, dir.path()});
  ASSERT_TRUE(host);
  EXPECT_EQ(omnirt_host_backend_count(host.get()), 1u);
  for (const omnirt_candidate& c : candidates(host.get())) {
    EXPECT_TRUE(is_clean_utf8(c.path)) << c.path;
    EXPECT_TRUE(is_clean_utf8(c.real_path)) << c.real_path;
    EXPECT_TRUE(is_clean_utf8(c.reason)) << c.reason;
  }
  const std::string shown_dir = dir.path() + R"(/odd \xFF\xFE name\x0Awith newline)";
  const auto loaded = candidate_at(host.get(), shown_dir + "/libomnirt_backend_good.so");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->loaded, 1);
  EXPECT_STREQ(info_of(backend_named(host.get(), "good")).path, loaded->path);
  for (const omnirt_search_dir& d : search_dirs(host.get())) EXPECT_TRUE(is_clean_utf8(d.path)) << d.path;

  const auto refused = candidate_at(host.get(), dir.path() + R"(/libomnirt_backend_bad\xE9name.so)");
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(refused->reason, HasSubstr(R"(file name 'libomnirt_backend_bad\xE9name.so' is not)"));
  const auto spaced = candidate_at(host.get(), spaces);
  ASSERT_TRUE(spaced.has_value());
  EXPECT_EQ(spaced->status, OMNIRT_STATUS_INVALID_ARGUMENT);
  const auto long_one = candidate_at(host.get(), long_name);
  ASSERT_TRUE(long_one.has_value());
  EXPECT_THAT(long_one->reason, StartsWith("file name 'libomnirt_backend_llll"));
}

}  // namespace
}  // namespace omnirt_test
