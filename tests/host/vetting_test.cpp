// Vetting in a child process (decision 13): plugins that crash, exit or hang
// while loading are rejected with stage and reason and never loaded here; the
// verdict cache, its invalidation and safety; where the settings come from.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

namespace omnirt_test {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

// What vetting one zoo/faults plugin must leave in its record.
struct FaultCase {
  const char* label;
  const char* path;
  omnirt_load_stage reached;
  omnirt_status status;
  const char* reason;  // substring
};

void PrintTo(const FaultCase& c, std::ostream* os) { *os << c.label; }

// The children of this process that still exist (running or unreaped).
std::vector<std::string> remaining_children() {
  std::vector<std::string> children;
  const std::string tasks = "/proc/" + std::to_string(getpid()) + "/task";
  for (const auto& task : fs::directory_iterator(tasks)) {
    std::ifstream file(task.path() / "children");
    std::string pid;
    while (file >> pid) children.push_back(pid);
  }
  return children;
}

class FaultTest : public ::testing::TestWithParam<FaultCase> {};

TEST_P(FaultTest, IsRejectedWithStageAndReasonWithoutTakingTheHostDown) {
  const FaultCase& c = GetParam();
  TempDir cache;
  HostPtr host = make_vetting_host({c.path, ZOO_GOOD},
                                   {OMNIRT_VETTING_ALWAYS, cache.path(), kTestVettingLimitMs});
  ASSERT_TRUE(host);

  const auto record = candidate_at(host.get(), c.path);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->loaded, 0);
  EXPECT_EQ(record->stage, c.reached) << record->reason;
  EXPECT_EQ(record->status, c.status) << omnirt_status_name(record->status) << ": " << record->reason;
  EXPECT_THAT(record->reason, HasSubstr(c.reason));
  EXPECT_THAT(record->reason, HasSubstr("not loaded into this process"));
  EXPECT_EQ(record->vet_outcome, OMNIRT_VET_REJECTED);
  EXPECT_EQ(record->vet_cached, 0);
  EXPECT_GT(record->vet_time_ns, 0u);

  // The good plugin beside it was vetted, then loaded, and works.
  const auto good = candidate_at(host.get(), ZOO_GOOD);
  ASSERT_TRUE(good.has_value());
  EXPECT_EQ(good->vet_outcome, OMNIRT_VET_PASSED);
  EXPECT_EQ(good->loaded, 1);
  omnirt_backend* backend = nullptr;
  ASSERT_EQ(omnirt_host_get_backend(host.get(), "good", &backend), OMNIRT_STATUS_OK) << last_message();
  void* memory = nullptr;
  EXPECT_EQ(omnirt_malloc(backend, 0, 64, &memory), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_free(backend, 0, memory), OMNIRT_STATUS_OK);

  // Asking for it by name returns its record.
  const std::string name = fs::path(c.path).stem().string().substr(std::strlen("libomnirt_backend_"));
  EXPECT_EQ(omnirt_host_get_backend(host.get(), name.c_str(), &backend), c.status);
  EXPECT_THAT(last_message(), HasSubstr(c.reason));
  EXPECT_THAT(remaining_children(), ::testing::IsEmpty());
}

#define CRASH "the plugin crashed the vetting process with SIGSEGV (signal 11) during "
#define EXIT "the plugin ended the vetting process with exit status 3 during "
#define HANG "the plugin did not finish "
INSTANTIATE_TEST_SUITE_P(
    Faults, FaultTest,
    ::testing::Values(
        FaultCase{"crash_in_constructor", ZOO_FAULT_CRASH_CONSTRUCTOR, OMNIRT_STAGE_FOUND, OMNIRT_STATUS_INTERNAL,
                  CRASH "dlopen"},
        FaultCase{"crash_in_entry", ZOO_FAULT_CRASH_ENTRY, OMNIRT_STAGE_ENTRY_SYMBOL, OMNIRT_STATUS_INTERNAL,
                  CRASH "negotiate"},
        FaultCase{"crash_in_create", ZOO_FAULT_CRASH_CREATE, OMNIRT_STAGE_NEGOTIATE, OMNIRT_STATUS_INTERNAL,
                  CRASH "validate"},
        FaultCase{"crash_in_is_available", ZOO_FAULT_CRASH_AVAILABLE, OMNIRT_STAGE_VALIDATE, OMNIRT_STATUS_INTERNAL,
                  CRASH "available"},
        FaultCase{"exit_in_constructor", ZOO_FAULT_EXIT_CONSTRUCTOR, OMNIRT_STAGE_FOUND, OMNIRT_STATUS_INTERNAL,
                  EXIT "dlopen"},
        FaultCase{"exit_in_entry", ZOO_FAULT_EXIT_ENTRY, OMNIRT_STAGE_ENTRY_SYMBOL, OMNIRT_STATUS_INTERNAL,
                  EXIT "negotiate"},
        FaultCase{"exit_in_create", ZOO_FAULT_EXIT_CREATE, OMNIRT_STAGE_NEGOTIATE, OMNIRT_STATUS_INTERNAL,
                  EXIT "validate"},
        FaultCase{"exit_in_is_available", ZOO_FAULT_EXIT_AVAILABLE, OMNIRT_STAGE_VALIDATE, OMNIRT_STATUS_INTERNAL,
                  EXIT "available"},
        FaultCase{"hang_in_constructor", ZOO_FAULT_HANG_CONSTRUCTOR, OMNIRT_STAGE_FOUND, OMNIRT_STATUS_TIMEOUT,
                  HANG "dlopen within 1500 ms"},
        FaultCase{"hang_in_entry", ZOO_FAULT_HANG_ENTRY, OMNIRT_STAGE_ENTRY_SYMBOL, OMNIRT_STATUS_TIMEOUT,
                  HANG "negotiate within 1500 ms"},
        FaultCase{"hang_in_create", ZOO_FAULT_HANG_CREATE, OMNIRT_STAGE_NEGOTIATE, OMNIRT_STATUS_TIMEOUT,
                  HANG "validate within 1500 ms"},
        FaultCase{"hang_in_is_available", ZOO_FAULT_HANG_AVAILABLE, OMNIRT_STAGE_VALIDATE, OMNIRT_STATUS_TIMEOUT,
                  HANG "available within 1500 ms"}));
#undef CRASH
#undef EXIT
#undef HANG

const std::string kFaultsDir = fs::path(ZOO_FAULT_CRASH_ENTRY).parent_path().string();

TEST(Vetting, AWholeFolderOfFaultsIsVettedInParallelAndNothingOfItLoads) {
  TempDir cache;
  const auto started = std::chrono::steady_clock::now();
  HostPtr host = make_vetting_host({kFaultsDir, ZOO_GOOD}, {OMNIRT_VETTING_NEW, cache.path(), kTestVettingLimitMs});
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(host);
  EXPECT_EQ(omnirt_host_backend_count(host.get()), 1u);  // good
  size_t rejected = 0;
  for (const omnirt_candidate& c : candidates(host.get())) {
    if (c.vet_outcome == OMNIRT_VET_REJECTED) ++rejected;
  }
  EXPECT_EQ(rejected, 12u);
  // The four hangs ran at the same time: far less than four time limits.
  EXPECT_LT(took, std::chrono::milliseconds(3 * kTestVettingLimitMs));
  EXPECT_THAT(remaining_children(), ::testing::IsEmpty());
}

TEST(Vetting, HostsVettingAtOnceFromSeveralThreadsAgree) {
  TempDir cache;
  std::vector<std::thread> threads;
  std::vector<size_t> backends(3, 0);
  for (size_t i = 0; i < backends.size(); ++i) {
    threads.emplace_back([&, i] {
      HostPtr host = make_vetting_host({ZOO_FAULT_CRASH_CREATE, ZOO_FAULT_EXIT_ENTRY, ZOO_GOOD},
                                       {OMNIRT_VETTING_NEW, cache.path(), kTestVettingLimitMs});
      backends[i] = omnirt_host_backend_count(host.get());
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_THAT(backends, ::testing::Each(1u));
  EXPECT_THAT(remaining_children(), ::testing::IsEmpty());
}

// A copy of a zoo plugin alone in a folder, so that it keeps its file name.
struct PluginCopy {
  explicit PluginCopy(const std::string& plugin) : path(dir / fs::path(plugin).filename().string()) {
    copy_file(plugin, path);
  }
  TempDir dir;
  std::string path;
};

// A candidate's record after its host is gone: the strings copied.
struct Record : omnirt_candidate {
  std::string reason_text;
};

Record vet_once(const std::string& path, const Vetting& vetting) {
  HostPtr host = make_vetting_host({path}, vetting);
  const auto found = candidate_at(host.get(), path);
  EXPECT_TRUE(found.has_value());
  Record record{found.value_or(omnirt_candidate{}), found ? found->reason : ""};
  record.path = record.real_path = record.reason = record.backend_name = nullptr;
  return record;
}

void set_mtime(const std::string& path, time_t seconds) {
  const timespec times[2] = {{seconds, 0}, {seconds, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << std::strerror(errno);
}

TEST(VerdictCache, RejectionIsCachedUntilTheFileIsTouchedOrRewritten) {
  TempDir cache;
  PluginCopy plugin(ZOO_FAULT_CRASH_CREATE);
  const Vetting vetting{OMNIRT_VETTING_NEW, cache.path(), kTestVettingLimitMs};

  const Record first = vet_once(plugin.path, vetting);
  EXPECT_EQ(first.vet_outcome, OMNIRT_VET_REJECTED);
  EXPECT_EQ(first.vet_cached, 0);
  EXPECT_THAT(first.reason_text, HasSubstr("SIGSEGV"));

  const Record cached = vet_once(plugin.path, vetting);
  EXPECT_EQ(cached.vet_outcome, OMNIRT_VET_REJECTED);
  EXPECT_EQ(cached.vet_cached, 1);
  EXPECT_EQ(cached.stage, first.stage);
  EXPECT_EQ(cached.status, first.status);
  EXPECT_EQ(cached.reason_text, first.reason_text);

  set_mtime(plugin.path, 1000000000);  // touch
  EXPECT_EQ(vet_once(plugin.path, vetting).vet_cached, 0);
  EXPECT_EQ(vet_once(plugin.path, vetting).vet_cached, 1);

  copy_file(ZOO_FAULT_CRASH_CREATE, plugin.path);  // rewritten: same bytes, new ctime
  set_mtime(plugin.path, 1000000000);             // even with the old mtime
  EXPECT_EQ(vet_once(plugin.path, vetting).vet_cached, 0);
}

TEST(VerdictCache, PassIsCachedAndThePluginStillLoadsEachTime) {
  TempDir cache;
  PluginCopy plugin(ZOO_GOOD);
  const Vetting vetting{OMNIRT_VETTING_NEW, cache.path(), kTestVettingLimitMs};
  const Record first = vet_once(plugin.path, vetting);
  EXPECT_EQ(first.vet_outcome, OMNIRT_VET_PASSED);
  EXPECT_EQ(first.vet_cached, 0);
  EXPECT_EQ(first.loaded, 1);
  const Record second = vet_once(plugin.path, vetting);
  EXPECT_EQ(second.vet_outcome, OMNIRT_VET_PASSED);
  EXPECT_EQ(second.vet_cached, 1);
  EXPECT_EQ(second.vet_time_ns, first.vet_time_ns);  // the figure of the vetting it came from
  EXPECT_EQ(second.loaded, 1);
  EXPECT_EQ(second.stage, OMNIRT_STAGE_AVAILABLE);
}

TEST(VerdictCache, DifferentBackendOptionsAreVettedAgain) {
  TempDir cache;
  PluginCopy plugin(ZOO_GOOD);
  TempDir configs;
  const auto vet = [&](const char* devices) {
    write_file(configs / "config.yaml", "vetting_cache_dir: " + cache.path() + "\nbackends: {good: {options: {devices: \"" +
                                            devices + "\"}}}\n");
    HostPtr host = make_host({plugin.path}, kIsolated, (configs / "config.yaml").c_str());
    return candidate_at(host.get(), plugin.path).value_or(omnirt_candidate{}).vet_cached;
  };
  EXPECT_EQ(vet("1"), 0);
  EXPECT_EQ(vet("1"), 1);
  EXPECT_EQ(vet("2"), 0);
}

TEST(VerdictCache, AlwaysVetsAgainButStillWritesTheCache) {
  TempDir cache;
  PluginCopy plugin(ZOO_GOOD);
  EXPECT_EQ(vet_once(plugin.path, {OMNIRT_VETTING_ALWAYS, cache.path(), kTestVettingLimitMs}).vet_cached, 0);
  EXPECT_EQ(vet_once(plugin.path, {OMNIRT_VETTING_ALWAYS, cache.path(), kTestVettingLimitMs}).vet_cached, 0);
  EXPECT_EQ(vet_once(plugin.path, {OMNIRT_VETTING_NEW, cache.path(), kTestVettingLimitMs}).vet_cached, 1);
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  return names;
}

TEST(VerdictCache, MissingDirectoryIsCreatedPrivateWithPrivateFiles) {
  TempDir base;
  const std::string cache = base / "a/b/omnirt";
  PluginCopy plugin(ZOO_GOOD);
  vet_once(plugin.path, {OMNIRT_VETTING_NEW, cache, kTestVettingLimitMs});
  struct stat status {};
  ASSERT_EQ(stat(cache.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0700u);
  const std::vector<std::string> files = files_in(cache);
  ASSERT_EQ(files.size(), 1u);
  ASSERT_EQ(stat((cache + "/" + files[0]).c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0600u);
}

TEST(VerdictCache, WorldWritableDirectoryIsRefusedAndVettingGoesOnWithoutIt) {
  TempDir cache;
  ASSERT_EQ(chmod(cache.path().c_str(), 0777), 0);
  PluginCopy plugin(ZOO_GOOD);
  const Vetting vetting{OMNIRT_VETTING_NEW, cache.path(), kTestVettingLimitMs};
  EXPECT_EQ(vet_once(plugin.path, vetting).vet_outcome, OMNIRT_VET_PASSED);
  const Record second = vet_once(plugin.path, vetting);
  EXPECT_EQ(second.vet_outcome, OMNIRT_VET_PASSED);
  EXPECT_EQ(second.vet_cached, 0);
  EXPECT_THAT(files_in(cache.path()), ::testing::IsEmpty());
}

TEST(VerdictCache, WorldWritableVerdictFileIsNotBelieved) {
  TempDir cache;
  PluginCopy plugin(ZOO_GOOD);
  const Vetting vetting{OMNIRT_VETTING_NEW, cache.path(), kTestVettingLimitMs};
  vet_once(plugin.path, vetting);
  const std::vector<std::string> files = files_in(cache.path());
  ASSERT_EQ(files.size(), 1u);
  ASSERT_EQ(chmod((cache / files[0]).c_str(), 0666), 0);
  EXPECT_EQ(vet_once(plugin.path, vetting).vet_cached, 0);
}

TEST(VerdictCache, GarbledVerdictIsAMiss) {
  TempDir cache;
  PluginCopy plugin(ZOO_GOOD);
  const Vetting vetting{OMNIRT_VETTING_NEW, cache.path(), kTestVettingLimitMs};
  vet_once(plugin.path, vetting);
  const std::vector<std::string> files = files_in(cache.path());
  ASSERT_EQ(files.size(), 1u);
  write_file(cache / files[0], "omnirt-verdict 1\npassed 1\n");
  EXPECT_EQ(vet_once(plugin.path, vetting).vet_cached, 0);
  EXPECT_EQ(vet_once(plugin.path, vetting).vet_cached, 1);  // rewritten whole
}

TEST(VerdictCache, VerdictsOfFilesThatAreGoneArePruned) {
  TempDir cache;
  const Vetting vetting{OMNIRT_VETTING_NEW, cache.path(), kTestVettingLimitMs};
  {
    PluginCopy gone(ZOO_GOOD);
    vet_once(gone.path, vetting);
  }
  ASSERT_EQ(files_in(cache.path()).size(), 1u);
  PluginCopy plugin(ZOO_MINIMAL);
  vet_once(plugin.path, vetting);  // stores a verdict, then prunes
  EXPECT_EQ(files_in(cache.path()).size(), 1u);
}

TEST(VettingSettings, DefaultCacheIsUnderXdgCacheHomeElseHome) {
  TempDir xdg;
  TempDir home;
  PluginCopy plugin(ZOO_GOOD);
  {
    ScopedEnv cache_home("XDG_CACHE_HOME", xdg.path());
    vet_once(plugin.path, {OMNIRT_VETTING_NEW, "", kTestVettingLimitMs});
  }
  EXPECT_EQ(files_in(xdg / "omnirt").size(), 1u);
  {
    ScopedEnv cache_home("XDG_CACHE_HOME", std::nullopt);
    ScopedEnv home_dir("HOME", home.path());
    vet_once(plugin.path, {OMNIRT_VETTING_NEW, "", kTestVettingLimitMs});
  }
  EXPECT_EQ(files_in(home / ".cache/omnirt").size(), 1u);
}

TEST(VettingSettings, OffLoadsWithoutVetting) {
  const Record c = vet_once(ZOO_GOOD, {OMNIRT_VETTING_OFF, "", 0});
  EXPECT_EQ(c.vet_outcome, OMNIRT_VET_NOT_VETTED);
  EXPECT_EQ(c.loaded, 1);
}

TEST(VettingSettings, EnvironmentChoosesUnlessIgnoredAndTheOptionsWin) {
  TempDir cache;
  ScopedEnv mode("OMNIRT_VETTING", std::string("off"));
  ScopedEnv dir("OMNIRT_VETTING_CACHE_DIR", cache.path());
  const auto outcome = [](uint32_t flags, omnirt_vetting vetting) {
    HostPtr host = make_vetting_host({ZOO_GOOD}, {vetting, "", 0}, flags);
    return candidate_at(host.get(), ZOO_GOOD).value_or(omnirt_candidate{}).vet_outcome;
  };
  EXPECT_EQ(outcome(OMNIRT_HOST_SKIP_INSTALLED_DIR, OMNIRT_VETTING_DEFAULT), OMNIRT_VET_NOT_VETTED);
  EXPECT_EQ(outcome(kIsolated, OMNIRT_VETTING_DEFAULT), OMNIRT_VET_PASSED);
  EXPECT_EQ(outcome(OMNIRT_HOST_SKIP_INSTALLED_DIR, OMNIRT_VETTING_NEW), OMNIRT_VET_PASSED);
}

TEST(VettingSettings, ConfigurationSetsModeAndTimeLimit) {
  TempDir dir;
  write_file(dir / "off.yaml", "vetting: off\n");
  HostPtr off = make_host({ZOO_GOOD}, kIsolated, (dir / "off.yaml").c_str());
  EXPECT_EQ(candidate_at(off.get(), ZOO_GOOD)->vet_outcome, OMNIRT_VET_NOT_VETTED);

  write_file(dir / "short.yaml", "vetting: always\nvetting_cache_dir: cache\nvetting_time_limit_ms: 300\n");
  HostPtr short_limit = make_host({ZOO_FAULT_HANG_ENTRY}, kIsolated, (dir / "short.yaml").c_str());
  const auto record = candidate_at(short_limit.get(), ZOO_FAULT_HANG_ENTRY);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->status, OMNIRT_STATUS_TIMEOUT);
  EXPECT_THAT(record->reason, HasSubstr("within 300 ms"));
  EXPECT_TRUE(fs::is_directory(dir / "cache"));  // relative to the configuration file
}

TEST(VettingSettings, BadOptionsAndConfigurationAreRefused) {
  const char* paths[] = {ZOO_GOOD};
  omnirt_host_options options{};
  options.struct_size = sizeof options;
  options.plugin_paths = paths;
  options.num_plugin_paths = 1;
  options.flags = kIsolated;
  omnirt_host* host = nullptr;
  options.vetting = 9;
  EXPECT_EQ(omnirt_host_create(&options, &host), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("options->vetting is 9"));
  options.vetting = OMNIRT_VETTING_NEW;
  options.vetting_time_limit_ms = 600001;
  EXPECT_EQ(omnirt_host_create(&options, &host), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("vetting_time_limit_ms is 600001"));
  EXPECT_EQ(host, nullptr);

  TempDir dir;
  for (const char* yaml : {"vetting: sometimes\n", "vetting_time_limit_ms: 0\n", "vetting_time_limit_ms: x\n",
                           "vetting_cache_dir: [a]\n"}) {
    write_file(dir / "bad.yaml", yaml);
    omnirt_status status = OMNIRT_STATUS_OK;
    EXPECT_FALSE(make_host({ZOO_GOOD}, &status, kIsolated, (dir / "bad.yaml").c_str())) << yaml;
    EXPECT_EQ(status, OMNIRT_STATUS_INVALID_ARGUMENT) << yaml;
    EXPECT_THAT(last_message(), HasSubstr("bad.yaml:1:")) << yaml;
  }
}

TEST(VettingSettings, AnEmbedderOfAbi10PassesTheOldSmallerOptions) {
  // The 1.0 struct is 40 bytes; what lies behind it is not the embedder's.
  alignas(omnirt_host_options) unsigned char bytes[sizeof(omnirt_host_options)];
  std::memset(bytes, 0xA5, sizeof bytes);
  omnirt_host_options options_1_0{};
  const char* paths[] = {ZOO_GOOD};
  options_1_0.struct_size = 40;
  options_1_0.plugin_paths = paths;
  options_1_0.num_plugin_paths = 1;
  options_1_0.flags = kIsolated;
  std::memcpy(bytes, &options_1_0, 40);
  omnirt_host* raw = nullptr;
  ASSERT_EQ(omnirt_host_create(reinterpret_cast<const omnirt_host_options*>(bytes), &raw), OMNIRT_STATUS_OK)
      << last_message();
  HostPtr host(raw);
  EXPECT_EQ(omnirt_host_backend_count(host.get()), 1u);

  options_1_0.struct_size = 32;
  EXPECT_EQ(omnirt_host_create(&options_1_0, &raw), OMNIRT_STATUS_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace omnirt_test
