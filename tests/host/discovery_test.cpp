// Discovery: every zoo variant's diagnostic record, the path checks, the
// search order and the sources of search paths.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <string>

#include "test_support.h"

namespace omnirt_test {
namespace {

using ::testing::HasSubstr;

// What loading one zoo plugin must leave in its candidate record.
struct ZooCase {
  const char* label;
  const char* path;
  omnirt_load_stage stage;
  omnirt_status status;
  bool loaded;
  const char* reason;  // substring of the record's reason ("" when it must be empty)
};

void PrintTo(const ZooCase& c, std::ostream* os) { *os << c.label; }

class ZooRecordTest : public ::testing::TestWithParam<ZooCase> {};

TEST_P(ZooRecordTest, LeavesTheRightRecordAndAWorkingHost) {
  const ZooCase& c = GetParam();
  // The good plugin loads next to it: one bad plugin never takes the host down.
  HostPtr host = make_host({c.path, ZOO_GOOD});
  ASSERT_TRUE(host);

  const auto record = candidate_at(host.get(), c.path);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->stage, c.stage) << record->reason;
  EXPECT_EQ(record->status, c.status) << omnirt_status_name(record->status) << ": " << record->reason;
  EXPECT_EQ(record->loaded, c.loaded ? 1 : 0);
  if (c.reason[0] == '\0') {
    EXPECT_STREQ(record->reason, "");
  } else {
    EXPECT_THAT(record->reason, HasSubstr(c.reason));
  }
  EXPECT_EQ(std::filesystem::path(record->real_path), std::filesystem::canonical(c.path));
  EXPECT_EQ(record->source, OMNIRT_SOURCE_API);

  omnirt_backend* good = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host.get(), "good", &good), OMNIRT_STATUS_OK) << last_message();
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, ZooRecordTest,
    ::testing::Values(
        ZooCase{"good", ZOO_GOOD, OMNIRT_STAGE_AVAILABLE, OMNIRT_STATUS_OK, true, ""},
        ZooCase{"newer_minor_with_extra_slots", ZOO_NEWMINOR, OMNIRT_STAGE_AVAILABLE, OMNIRT_STATUS_OK, true, ""},
        ZooCase{"unavailable", ZOO_UNAVAIL, OMNIRT_STAGE_VALIDATE, OMNIRT_STATUS_UNAVAILABLE, true,
                "fake: no fake device here"},
        ZooCase{"no_entry_symbol", ZOO_NOENTRY, OMNIRT_STAGE_DLOPEN, OMNIRT_STATUS_INCOMPATIBLE, false,
                "not an OmniRT plugin: no symbol 'omnirt_backend_entry'"},
        ZooCase{"entry_returns_null", ZOO_ENTRYNULL, OMNIRT_STAGE_ENTRY_SYMBOL, OMNIRT_STATUS_INCOMPATIBLE, false,
                "the entry point refused to load: fake: this plugin refuses every host"},
        ZooCase{"entry_throws", ZOO_THROWENTRY, OMNIRT_STAGE_ENTRY_SYMBOL, OMNIRT_STATUS_INTERNAL, false,
                "an exception escaped the entry point"},
        ZooCase{"abi_major_too_new", ZOO_ABINEW, OMNIRT_STAGE_ENTRY_SYMBOL, OMNIRT_STATUS_INCOMPATIBLE, false,
                "the plugin implements ABI 2.0; this host speaks ABI 1.x"},
        ZooCase{"abi_major_too_old", ZOO_ABIOLD, OMNIRT_STAGE_ENTRY_SYMBOL, OMNIRT_STATUS_INCOMPATIBLE, false,
                "the plugin implements ABI 0.9"},
        ZooCase{"struct_size_zero", ZOO_SIZE0, OMNIRT_STAGE_NEGOTIATE, OMNIRT_STATUS_INCOMPATIBLE, false,
                "vtable struct_size is 0"},
        ZooCase{"struct_size_too_small", ZOO_SIZESMALL, OMNIRT_STAGE_NEGOTIATE, OMNIRT_STATUS_INCOMPATIBLE, false,
                "vtable struct_size 64 is smaller than the ABI 1.0 vtable"},
        ZooCase{"struct_size_absurd", ZOO_SIZEHUGE, OMNIRT_STAGE_NEGOTIATE, OMNIRT_STATUS_INCOMPATIBLE, false,
                "vtable struct_size 1048576 is implausible"},
        ZooCase{"required_slot_null", ZOO_NULLSLOT, OMNIRT_STAGE_NEGOTIATE, OMNIRT_STATUS_INCOMPATIBLE, false,
                "required slot is NULL: memset_sync"},
        ZooCase{"name_differs_from_file_name", ZOO_MISMATCH, OMNIRT_STAGE_NEGOTIATE, OMNIRT_STATUS_INCOMPATIBLE,
                false, "vtable name 'othername' does not match the file name (expected 'mismatch')"},
        ZooCase{"create_fails", ZOO_CREATEFAIL, OMNIRT_STAGE_NEGOTIATE, OMNIRT_STATUS_UNAVAILABLE, false,
                "create failed: fake: create refused on purpose"},
        ZooCase{"slot_throws_but_loads", ZOO_THROWSLOT, OMNIRT_STAGE_AVAILABLE, OMNIRT_STATUS_OK, true, ""}),
    [](const auto& test) { return std::string(test.param.label); });

TEST(Discovery, RecordsVersionsAndTimeOfALoadedPlugin) {
  HostPtr host = make_host({ZOO_NEWMINOR});
  const auto record = candidate_at(host.get(), ZOO_NEWMINOR);
  ASSERT_TRUE(record.has_value());
  EXPECT_STREQ(record->backend_name, "newminor");
  EXPECT_EQ(record->plugin_abi_version, OMNIRT_MAKE_VERSION(1, OMNIRT_ABI_VERSION_MINOR + 1));
  EXPECT_GT(record->load_time_ns, 0u);
  const omnirt_backend_info info = info_of(backend_named(host.get(), "newminor"));
  EXPECT_EQ(info.abi_version, OMNIRT_MAKE_VERSION(1, OMNIRT_ABI_VERSION_MINOR + 1));
}

TEST(Discovery, WholeZooDirectoryLoadsTheGoodAndRecordsEveryFile) {
  HostPtr host = make_host({ZOO_DIR});
  ASSERT_TRUE(host);
  size_t plugin_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ZOO_DIR)) {
    plugin_files += entry.is_regular_file() ? 1 : 0;
  }
  EXPECT_EQ(omnirt_host_candidate_count(host.get()), plugin_files);
  // good, minimal, newminor, quiet, throwslot and unavail load; unavail is not available.
  EXPECT_EQ(omnirt_host_backend_count(host.get()), 6u);
  const auto dirs = search_dirs(host.get());
  ASSERT_FALSE(dirs.empty());
  EXPECT_STREQ(dirs[0].path, ZOO_DIR);
  EXPECT_EQ(dirs[0].searched, 1);
  EXPECT_EQ(std::string(dirs[0].note), std::to_string(plugin_files) + " plugin files");
}

TEST(Discovery, NonElfFileNamedLikeAPluginIsRejectedAtDlopen) {
  TempDir dir;
  const std::string path = dir / "libomnirt_backend_notelf.so";
  write_file(path, std::string(256, 'x'));
  HostPtr host = make_host({path, ZOO_GOOD});
  const auto record = candidate_at(host.get(), path);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->stage, OMNIRT_STAGE_FOUND);
  EXPECT_EQ(record->status, OMNIRT_STATUS_INCOMPATIBLE);
  EXPECT_THAT(record->reason, HasSubstr("dlopen failed"));
  EXPECT_EQ(omnirt_host_backend_count(host.get()), 1u);
}

TEST(Discovery, SymlinkToAPluginIsLoadedOnce) {
  TempDir dir;
  const std::string link = dir / "libomnirt_backend_good.so";
  std::filesystem::create_symlink(ZOO_GOOD, link);
  HostPtr host = make_host({dir.path(), ZOO_GOOD});
  EXPECT_EQ(omnirt_host_backend_count(host.get()), 1u);
  const auto first = candidate_at(host.get(), link);
  const auto second = candidate_at(host.get(), ZOO_GOOD);
  ASSERT_TRUE(first.has_value() && second.has_value());
  EXPECT_EQ(first->loaded, 1);
  EXPECT_EQ(std::filesystem::path(first->real_path), std::filesystem::canonical(ZOO_GOOD));
  EXPECT_EQ(second->loaded, 0);
  EXPECT_EQ(second->status, OMNIRT_STATUS_ALREADY_EXISTS);
  EXPECT_EQ(second->stage, OMNIRT_STAGE_FOUND);
  EXPECT_EQ(first->skipped, 0);
  EXPECT_EQ(second->skipped, 1);  // a second copy is no fault
  EXPECT_THAT(second->reason, HasSubstr("same file as '" + link + "'"));
}

TEST(Discovery, DanglingSymlinkIsRejected) {
  TempDir dir;
  const std::string link = dir / "libomnirt_backend_gone.so";
  std::filesystem::create_symlink(dir / "nowhere.so", link);
  HostPtr host = make_host({dir.path()});
  const auto record = candidate_at(host.get(), link);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->status, OMNIRT_STATUS_NOT_FOUND);
  EXPECT_EQ(record->skipped, 0);  // a fault, not a choice
  EXPECT_THAT(record->reason, HasSubstr("cannot resolve the path"));
}

TEST(Discovery, WorldWritablePluginFileIsRefused) {
  TempDir dir;
  const std::string path = dir / "libomnirt_backend_good.so";
  copy_file(ZOO_GOOD, path);
  ASSERT_EQ(chmod(path.c_str(), 0666), 0);
  HostPtr host = make_host({path});
  const auto record = candidate_at(host.get(), path);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->stage, OMNIRT_STAGE_FOUND);
  EXPECT_EQ(record->status, OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_THAT(record->reason, HasSubstr("refused: the file is world-writable (mode 0666)"));
  EXPECT_EQ(omnirt_host_backend_count(host.get()), 0u);
}

TEST(Discovery, PluginInAWorldWritableDirectoryIsRefusedEvenThroughASymlink) {
  TempDir dir;
  const std::string open_dir = dir / "open";
  std::filesystem::create_directory(open_dir);
  ASSERT_EQ(chmod(open_dir.c_str(), 0777), 0);
  copy_file(ZOO_GOOD, open_dir + "/libomnirt_backend_good.so");
  const std::string safe_dir = dir / "safe";
  std::filesystem::create_directory(safe_dir);
  std::filesystem::create_symlink(open_dir + "/libomnirt_backend_good.so", safe_dir + "/libomnirt_backend_good.so");

  HostPtr host = make_host({safe_dir});
  const auto record = candidate_at(host.get(), safe_dir + "/libomnirt_backend_good.so");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->status, OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_THAT(record->reason, HasSubstr("its directory '" + open_dir + "' is world-writable (mode 0777)"));
  EXPECT_EQ(omnirt_host_backend_count(host.get()), 0u);
}

TEST(Discovery, FileGivenByPathMustFollowTheNamingRule) {
  TempDir dir;
  const std::string path = dir / "libfake.so";
  copy_file(ZOO_GOOD, path);
  HostPtr host = make_host({path});
  const auto record = candidate_at(host.get(), path);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->status, OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(record->reason, HasSubstr("'libfake.so' is not libomnirt_backend_<name>.so"));
}

TEST(Discovery, DirectoryScanTakesPluginNamesOnlyAndReportsBadOnes) {
  TempDir dir;
  write_file(dir / "README", "not a plugin");
  copy_file(ZOO_GOOD, dir / "libomnirt_backend_good.so.1");
  copy_file(ZOO_GOOD, dir / "libomnirt_backend_Bad-Name.so");
  HostPtr host = make_host({dir.path()});
  const auto all = candidates(host.get());
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].status, OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(all[0].reason, HasSubstr("'libomnirt_backend_Bad-Name.so'"));
}

TEST(Discovery, MissingPlaceIsNotedAndSkipped) {
  TempDir dir;
  HostPtr host = make_host({dir / "missing"});
  const auto dirs = search_dirs(host.get());
  ASSERT_FALSE(dirs.empty());
  EXPECT_EQ(dirs[0].searched, 0);
  EXPECT_STREQ(dirs[0].note, "does not exist");
  EXPECT_EQ(omnirt_host_candidate_count(host.get()), 0u);
}

TEST(SearchPath, HasTheFourSourcesInOrderWithReasons) {
  HostPtr host = make_host({ZOO_GOOD});
  const auto dirs = search_dirs(host.get());
  ASSERT_EQ(dirs.size(), 4u);
  EXPECT_EQ(dirs[0].source, OMNIRT_SOURCE_API);
  EXPECT_STREQ(dirs[0].note, "plugin file");
  EXPECT_EQ(dirs[1].source, OMNIRT_SOURCE_ENVIRONMENT);
  EXPECT_EQ(dirs[1].searched, 0);
  EXPECT_THAT(dirs[1].note, HasSubstr("OMNIRT_HOST_IGNORE_ENVIRONMENT"));
  EXPECT_EQ(dirs[2].source, OMNIRT_SOURCE_CONFIG);
  EXPECT_STREQ(dirs[2].note, "no configuration file");
  EXPECT_EQ(dirs[3].source, OMNIRT_SOURCE_INSTALLED);
  EXPECT_THAT(dirs[3].note, HasSubstr("OMNIRT_HOST_SKIP_INSTALLED_DIR"));
}

TEST(SearchPath, InstalledDirectoryIsNextToTheLibrary) {
  HostPtr host = make_host({}, OMNIRT_HOST_IGNORE_ENVIRONMENT);
  const auto dirs = search_dirs(host.get());
  ASSERT_FALSE(dirs.empty());
  const omnirt_search_dir& installed = dirs.back();
  EXPECT_EQ(installed.source, OMNIRT_SOURCE_INSTALLED);
  const auto expected = std::filesystem::path(OMNIRT_LIBRARY_PATH).parent_path() / "omnirt" / "plugins";
  EXPECT_EQ(std::filesystem::path(installed.path), expected);
}

TEST(SearchPath, PluginPathVariableIsSplitOnColonsAfterApiPaths) {
  TempDir dir;
  const std::string a = dir / "a";
  const std::string b = dir / "b";
  std::filesystem::create_directory(a);
  std::filesystem::create_directory(b);
  std::filesystem::create_symlink(ZOO_MINIMAL, b + "/libomnirt_backend_minimal.so");
  ScopedEnv env("OMNIRT_PLUGIN_PATH", a + "::" + b + ":");
  HostPtr host = make_host({ZOO_GOOD}, OMNIRT_HOST_SKIP_INSTALLED_DIR);
  const auto dirs = search_dirs(host.get());
  ASSERT_EQ(dirs.size(), 5u);
  EXPECT_EQ(dirs[0].source, OMNIRT_SOURCE_API);
  EXPECT_EQ(dirs[1].source, OMNIRT_SOURCE_ENVIRONMENT);
  EXPECT_EQ(dirs[1].path, a);
  EXPECT_STREQ(dirs[1].note, "0 plugin files");
  EXPECT_EQ(dirs[2].path, b);
  EXPECT_STREQ(dirs[2].note, "1 plugin file");
  const auto record = candidate_at(host.get(), b + "/libomnirt_backend_minimal.so");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->source, OMNIRT_SOURCE_ENVIRONMENT);
  EXPECT_EQ(record->loaded, 1);
}

TEST(SearchPath, EnvironmentIsIgnoredWhenTheEmbedderSaysSo) {
  ScopedEnv path("OMNIRT_PLUGIN_PATH", std::string(ZOO_DIR));
  ScopedEnv config("OMNIRT_CONFIG", std::string("/nonexistent/omnirt.yaml"));
  omnirt_status status = OMNIRT_STATUS_INTERNAL;
  HostPtr host = make_host({}, &status, kIsolated);
  ASSERT_EQ(status, OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(omnirt_host_candidate_count(host.get()), 0u);
}

TEST(SearchPath, EnvironmentVariablesAreReadWithoutTheFlag) {
  ScopedEnv config("OMNIRT_CONFIG", std::string("/nonexistent/omnirt.yaml"));
  omnirt_status status = OMNIRT_STATUS_OK;
  HostPtr host = make_host({}, &status, OMNIRT_HOST_SKIP_INSTALLED_DIR);
  EXPECT_EQ(status, OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("/nonexistent/omnirt.yaml: cannot read configuration"));
}

TEST(SearchPath, UnsetVariableIsNoted) {
  ScopedEnv path("OMNIRT_PLUGIN_PATH", std::nullopt);
  HostPtr host = make_host({}, OMNIRT_HOST_SKIP_INSTALLED_DIR);
  const auto dirs = search_dirs(host.get());
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_STREQ(dirs[1].note, "OMNIRT_PLUGIN_PATH is not set");
}

TEST(SearchPath, FirstPluginOfANameWinsAndTheSecondNamesIt) {
  const std::string dup_a = std::filesystem::path(ZOO_DUP_A).parent_path().string();
  ScopedEnv env("OMNIRT_PLUGIN_PATH", std::filesystem::path(ZOO_DUP_B).parent_path().string());
  HostPtr host = make_host({dup_a}, OMNIRT_HOST_SKIP_INSTALLED_DIR);
  ASSERT_EQ(omnirt_host_backend_count(host.get()), 1u);
  EXPECT_STREQ(info_of(backend_named(host.get(), "dup")).plugin_version, "1.0.0-a");
  const auto second = candidate_at(host.get(), ZOO_DUP_B);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->status, OMNIRT_STATUS_ALREADY_EXISTS);
  EXPECT_EQ(second->source, OMNIRT_SOURCE_ENVIRONMENT);
  EXPECT_EQ(second->skipped, 1);  // shadowed, not broken
  EXPECT_THAT(second->reason, HasSubstr(std::string("backend 'dup' is already provided by '") + ZOO_DUP_A + "'"));
}

TEST(Records, AccessorsCheckTheirArguments) {
  HostPtr host = make_host({ZOO_GOOD});
  omnirt_candidate candidate{};
  candidate.struct_size = sizeof candidate;
  EXPECT_EQ(omnirt_host_get_candidate(nullptr, 0, &candidate), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(omnirt_host_get_candidate(host.get(), 0, nullptr), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(omnirt_host_get_candidate(host.get(), 1, &candidate), OMNIRT_STATUS_OUT_OF_RANGE);
  EXPECT_THAT(last_message(), HasSubstr("index 1 is out of range (there are 1)"));
  candidate.struct_size = 0;
  EXPECT_EQ(omnirt_host_get_candidate(host.get(), 0, &candidate), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("sizeof(omnirt_candidate)"));
  EXPECT_EQ(omnirt_host_candidate_count(nullptr), 0u);
  EXPECT_EQ(omnirt_host_search_dir_count(nullptr), 0u);
  EXPECT_EQ(omnirt_host_backend_count(nullptr), 0u);
  omnirt_search_dir dir{};
  dir.struct_size = sizeof dir;
  EXPECT_EQ(omnirt_host_get_search_dir(host.get(), 99, &dir), OMNIRT_STATUS_OUT_OF_RANGE);
}

TEST(Records, OlderCallerGetsOnlyTheFieldsItKnows) {
  HostPtr host = make_host({ZOO_GOOD});
  omnirt_candidate candidate;
  std::memset(&candidate, 0xAB, sizeof candidate);
  candidate.struct_size = offsetof(omnirt_candidate, real_path);  // knows struct_size and path only
  ASSERT_EQ(omnirt_host_get_candidate(host.get(), 0, &candidate), OMNIRT_STATUS_OK);
  EXPECT_EQ(candidate.struct_size, offsetof(omnirt_candidate, real_path));
  EXPECT_STREQ(candidate.path, ZOO_GOOD);
  const unsigned char* tail = reinterpret_cast<const unsigned char*>(&candidate.real_path);
  EXPECT_EQ(tail[0], 0xAB);  // untouched
}

TEST(HostOptions, BadOptionsFailCreation) {
  omnirt_host* host = reinterpret_cast<omnirt_host*>(0x1);
  omnirt_host_options options{};
  options.struct_size = 8;
  EXPECT_EQ(omnirt_host_create(&options, &host), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(host, nullptr);
  EXPECT_THAT(last_message(), HasSubstr("options->struct_size is 8"));
  options.struct_size = sizeof options;
  options.num_plugin_paths = 1;
  EXPECT_EQ(omnirt_host_create(&options, &host), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("options->plugin_paths is NULL"));
  const char* paths[] = {ZOO_GOOD, nullptr};
  options.plugin_paths = paths;
  options.num_plugin_paths = 2;
  EXPECT_EQ(omnirt_host_create(&options, &host), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("options->plugin_paths[1] is NULL"));
  EXPECT_EQ(omnirt_host_create(&options, nullptr), OMNIRT_STATUS_INVALID_ARGUMENT);
}

TEST(HostOptions, NullOptionsMeanDefaults) {
  ScopedEnv path("OMNIRT_PLUGIN_PATH", std::nullopt);
  ScopedEnv config("OMNIRT_CONFIG", std::nullopt);
  omnirt_host* host = nullptr;
  ASSERT_EQ(omnirt_host_create(nullptr, &host), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(omnirt_host_search_dir_count(host), 4u);
  omnirt_host_destroy(host);
  omnirt_host_destroy(nullptr);
}

}  // namespace
}  // namespace omnirt_test
