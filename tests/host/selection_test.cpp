// Selecting backends: auto, by name, rejected, unavailable; ordering by
// priority; allow and deny lists; per-backend options.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "test_support.h"

namespace omnirt_test {
namespace {

using ::testing::HasSubstr;

// Writes `yaml` into a config file in `dir` and returns its path.
std::string config_file(const TempDir& dir, const std::string& yaml) {
  const std::string path = dir / "omnirt.yaml";
  write_file(path, yaml);
  return path;
}

std::string selected_name(omnirt_host* host, const char* name) {
  omnirt_backend* backend = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host, name, &backend), OMNIRT_STATUS_OK) << last_message();
  return backend != nullptr ? info_of(backend).name : "";
}

TEST(Selection, AutoPicksTheFirstAvailableByName) {
  HostPtr host = make_host({ZOO_UNAVAIL, ZOO_MINIMAL, ZOO_GOOD});
  EXPECT_EQ(selected_name(host.get(), "auto"), "good");
  EXPECT_EQ(selected_name(host.get(), nullptr), "good");
  // Selection order: good, minimal, unavail (all priority 0).
  ASSERT_EQ(omnirt_host_backend_count(host.get()), 3u);
  const char* expected[] = {"good", "minimal", "unavail"};
  for (size_t i = 0; i < 3; ++i) {
    omnirt_backend* backend = nullptr;
    ASSERT_EQ(omnirt_host_backend_at(host.get(), i, &backend), OMNIRT_STATUS_OK);
    EXPECT_STREQ(info_of(backend).name, expected[i]);
  }
  omnirt_backend* backend = nullptr;
  EXPECT_EQ(omnirt_host_backend_at(host.get(), 3, &backend), OMNIRT_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(backend, nullptr);
}

TEST(Selection, PrioritiesComeBeforeNames) {
  TempDir dir;
  const std::string config = config_file(dir, "priorities: {minimal: 10, unavail: 20}\n");
  HostPtr host = make_host({ZOO_GOOD, ZOO_MINIMAL, ZOO_UNAVAIL}, kIsolated, config.c_str());
  omnirt_backend* first = nullptr;
  ASSERT_EQ(omnirt_host_backend_at(host.get(), 0, &first), OMNIRT_STATUS_OK);
  EXPECT_STREQ(info_of(first).name, "unavail");
  EXPECT_EQ(info_of(first).priority, 20);
  // unavail comes first but cannot run: auto skips it.
  EXPECT_EQ(selected_name(host.get(), "auto"), "minimal");
}

TEST(Selection, AutoWithNothingAvailableSaysWhy) {
  HostPtr host = make_host({ZOO_UNAVAIL});
  omnirt_backend* backend = reinterpret_cast<omnirt_backend*>(0x1);
  EXPECT_EQ(omnirt_host_get_backend(host.get(), "auto", &backend), OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_EQ(backend, nullptr);
  EXPECT_THAT(last_message(),
              HasSubstr("no backend is available here: unavail: unavailable: fake: no fake device here"));
}

TEST(Selection, AutoWithNothingLoadedIsNotFoundNamingEachFilesReason) {
  HostPtr host = make_host({ZOO_NOENTRY});
  omnirt_backend* backend = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host.get(), nullptr, &backend), OMNIRT_STATUS_NOT_FOUND);
  EXPECT_THAT(last_message(), HasSubstr(std::string("noentry: rejected, reached stage dlopen (") + ZOO_NOENTRY +
                                        "): "));
  EXPECT_THAT(last_message(), HasSubstr("omnirt_backend_entry"));
}

TEST(Selection, AutoWithNoFileAtAllSaysWhereToLook) {
  HostPtr host = make_host({});
  omnirt_backend* backend = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host.get(), nullptr, &backend), OMNIRT_STATUS_NOT_FOUND);
  EXPECT_THAT(last_message(), HasSubstr("no backend plugin was found; run omnirt-probe --verbose"));
}

// A plugin whose create refused its options is not among the backends; auto
// must still say so, next to the reasons of the backends that did load.
TEST(Selection, AutoWithNothingAvailableListsRejectedAndSkippedFilesToo) {
  TempDir dir;
  const std::string config = config_file(
      dir, "deny: [minimal]\nbackends:\n  good:\n    options: {devices: lots}\n");
  HostPtr host = make_host({ZOO_UNAVAIL, ZOO_GOOD, ZOO_MINIMAL}, kIsolated, config.c_str());
  omnirt_backend* backend = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host.get(), "auto", &backend), OMNIRT_STATUS_UNAVAILABLE);
  const std::string message = last_message();
  EXPECT_THAT(message, HasSubstr("unavail: unavailable: fake: no fake device here"));
  EXPECT_THAT(message, HasSubstr(std::string("good: rejected, reached stage negotiate (") + ZOO_GOOD +
                                 "): create failed: fake: option 'devices' must be a number"));
  EXPECT_THAT(message, HasSubstr(std::string("minimal: skipped (") + ZOO_MINIMAL +
                                 "): 'minimal' is in the deny list"));
}

TEST(Selection, UnavailableByNameGivesItsReason) {
  HostPtr host = make_host({ZOO_UNAVAIL});
  omnirt_backend* backend = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host.get(), "unavail", &backend), OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_THAT(last_message(), HasSubstr("backend 'unavail' is not available here: fake: no fake device here"));
  EXPECT_STREQ(omnirt_last_error()->backend, "unavail");
}

TEST(Selection, RejectedByNameGivesItsRecord) {
  HostPtr host = make_host({ZOO_NULLSLOT, ZOO_MISMATCH});
  omnirt_backend* backend = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host.get(), "nullslot", &backend), OMNIRT_STATUS_INCOMPATIBLE);
  EXPECT_THAT(last_message(), HasSubstr(std::string("backend 'nullslot' was not loaded from '") + ZOO_NULLSLOT +
                                        "': required slot is NULL: memset_sync"));
  // Found by the name in the file and by the name in the vtable.
  EXPECT_EQ(omnirt_host_get_backend(host.get(), "mismatch", &backend), OMNIRT_STATUS_INCOMPATIBLE);
  EXPECT_EQ(omnirt_host_get_backend(host.get(), "othername", &backend), OMNIRT_STATUS_INCOMPATIBLE);
  EXPECT_THAT(last_message(), HasSubstr("does not match the file name"));
}

TEST(Selection, UnknownNameListsTheKnownOnes) {
  HostPtr host = make_host({ZOO_GOOD, ZOO_MINIMAL});
  omnirt_backend* backend = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host.get(), "cuda", &backend), OMNIRT_STATUS_NOT_FOUND);
  EXPECT_THAT(last_message(), HasSubstr("no backend named 'cuda'; known backends: good, minimal"));
  EXPECT_STREQ(omnirt_last_error()->backend, "");
}

TEST(Selection, ArgumentsAreChecked) {
  HostPtr host = make_host({ZOO_GOOD});
  omnirt_backend* backend = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(nullptr, "good", &backend), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("omnirt_host_get_backend: host is NULL"));
  EXPECT_EQ(omnirt_host_get_backend(host.get(), "good", nullptr), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(omnirt_host_backend_at(host.get(), 0, nullptr), OMNIRT_STATUS_INVALID_ARGUMENT);
  omnirt_backend_info info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(omnirt_backend_get_info(nullptr, &info), OMNIRT_STATUS_INVALID_ARGUMENT);
}

TEST(Selection, BackendInfoDescribesThePlugin) {
  HostPtr host = make_host({ZOO_UNAVAIL, ZOO_GOOD});
  const omnirt_backend_info good = info_of(backend_named(host.get(), "good"));
  EXPECT_STREQ(good.plugin_version, "1.0.0");
  EXPECT_EQ(good.abi_version, OMNIRT_ABI_VERSION);
  EXPECT_STREQ(good.path, ZOO_GOOD);
  EXPECT_EQ(good.available, 1);
  EXPECT_STREQ(good.unavailable_reason, "");
  EXPECT_EQ(good.priority, 0);
  const omnirt_backend_info unavail = info_of(backend_named(host.get(), "unavail"));
  EXPECT_EQ(unavail.available, 0);
  EXPECT_STREQ(unavail.unavailable_reason, "fake: no fake device here (set FAKE_DEVICE=1)");
}

TEST(Configuration, AllowListLoadsOnlyTheNamedBackends) {
  TempDir dir;
  const std::string config = config_file(dir, "allow: [good]\n");
  HostPtr host = make_host({ZOO_GOOD, ZOO_MINIMAL}, kIsolated, config.c_str());
  EXPECT_EQ(omnirt_host_backend_count(host.get()), 1u);
  const auto record = candidate_at(host.get(), ZOO_MINIMAL);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->status, OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_EQ(record->stage, OMNIRT_STAGE_FOUND);
  EXPECT_EQ(record->skipped, 1);
  EXPECT_THAT(record->reason, HasSubstr("'minimal' is not in the allow list of '" + config + "'"));
  omnirt_backend* backend = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host.get(), "minimal", &backend), OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_THAT(last_message(), HasSubstr("not in the allow list"));
}

TEST(Configuration, DenyListRefusesBeforeLoading) {
  TempDir dir;
  const std::string config = config_file(dir, "deny: [throwentry]\n");
  HostPtr host = make_host({ZOO_THROWENTRY, ZOO_GOOD}, kIsolated, config.c_str());
  const auto record = candidate_at(host.get(), ZOO_THROWENTRY);
  ASSERT_TRUE(record.has_value());
  // The plugin's code never ran: it would have thrown at the entry point.
  EXPECT_EQ(record->stage, OMNIRT_STAGE_FOUND);
  EXPECT_THAT(record->reason, HasSubstr("'throwentry' is in the deny list"));
  EXPECT_EQ(omnirt_host_backend_count(host.get()), 1u);
}

TEST(Configuration, BackendOptionsReachCreate) {
  TempDir dir;
  const std::string config = config_file(dir, "backends:\n  good:\n    options: {devices: 3}\n");
  HostPtr host = make_host({ZOO_GOOD}, kIsolated, config.c_str());
  int32_t count = 0;
  ASSERT_EQ(omnirt_get_device_count(backend_named(host.get(), "good"), &count), OMNIRT_STATUS_OK);
  EXPECT_EQ(count, 3);
}

TEST(Configuration, OptionsThePluginRejectsFailItsCreate) {
  TempDir dir;
  const std::string config = config_file(dir, "backends:\n  good:\n    options: {devices: lots}\n");
  HostPtr host = make_host({ZOO_GOOD}, kIsolated, config.c_str());
  const auto record = candidate_at(host.get(), ZOO_GOOD);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->status, OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(record->reason, HasSubstr("create failed: fake: option 'devices' must be a number"));
}

}  // namespace
}  // namespace omnirt_test
