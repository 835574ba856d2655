// The YAML configuration: the full schema parses; every kind of mistake fails
// host creation with INVALID_ARGUMENT and a message naming file and line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_support.h"

namespace omnirt_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class ConfigTest : public ::testing::Test {
 protected:
  // Creates a host with `yaml` as its configuration; returns the status.
  omnirt_status create_with(const std::string& yaml) {
    write_file(path_, yaml);
    omnirt_status status = OMNIRT_STATUS_INTERNAL;
    host_ = make_host({}, &status, kIsolated, path_.c_str());
    return status;
  }
  // Expects creation to fail at `line`:`column` with `what` in the message.
  void expect_error(const std::string& yaml, int line, int column, const std::string& what) {
    EXPECT_EQ(create_with(yaml), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_FALSE(host_);
    const std::string location = path_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
    EXPECT_THAT(last_message(), HasSubstr(location + what));
    EXPECT_THAT(last_message(), StartsWith("omnirt_host_create: invalid configuration: "));
  }

  TempDir dir_;
  std::string path_ = dir_ / "omnirt.yaml";
  HostPtr host_;
};

TEST_F(ConfigTest, TheWholeSchemaParses) {
  const std::string plugins = dir_ / "plugins";
  std::filesystem::create_directory(plugins);
  std::filesystem::create_symlink(ZOO_GOOD, plugins + "/libomnirt_backend_good.so");
  ASSERT_EQ(create_with(R"(# every key of the schema
plugin_dirs: [plugins]
allow: [good, cpu]
deny: [cambricon]
priorities: {good: 100, cpu: 0}
log_level: error
backends:
  good:
    options: {devices: "2"}
wrap_module:
  compile: true
  policies:
    default: [compile, override, eager]
    rms_norm: [override, compile, eager]
)"),
            OMNIRT_STATUS_OK)
      << last_message();
  // plugin_dirs is relative to the file's directory.
  const auto dirs = search_dirs(host_.get());
  ASSERT_EQ(dirs.size(), 4u);
  EXPECT_EQ(dirs[2].source, OMNIRT_SOURCE_CONFIG);
  EXPECT_EQ(dirs[2].path, plugins);
  omnirt_backend* good = nullptr;
  ASSERT_EQ(omnirt_host_get_backend(host_.get(), "good", &good), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(info_of(good).priority, 100);
  int32_t devices = 0;
  EXPECT_EQ(omnirt_get_device_count(good, &devices), OMNIRT_STATUS_OK);
  EXPECT_EQ(devices, 2);
}

TEST_F(ConfigTest, AnEmptyFileIsAnEmptyConfiguration) {
  EXPECT_EQ(create_with(""), OMNIRT_STATUS_OK) << last_message();
  const auto dirs = search_dirs(host_.get());
  ASSERT_EQ(dirs.size(), 4u);
  EXPECT_EQ(dirs[2].searched, 0);
  EXPECT_THAT(dirs[2].note, HasSubstr("has no plugin_dirs"));
}

TEST_F(ConfigTest, ConfigPathFromTheEnvironment) {
  write_file(path_, "plugin_dirs: [/nonexistent/plugins]\n");
  ScopedEnv env("OMNIRT_CONFIG", path_);
  omnirt_status status = OMNIRT_STATUS_INTERNAL;
  HostPtr host = make_host({}, &status, OMNIRT_HOST_SKIP_INSTALLED_DIR);
  ASSERT_EQ(status, OMNIRT_STATUS_OK) << last_message();
  const auto dirs = search_dirs(host.get());
  ASSERT_GE(dirs.size(), 3u);
  EXPECT_STREQ(dirs[2].path, "/nonexistent/plugins");
  EXPECT_STREQ(dirs[2].note, "does not exist");
}

TEST_F(ConfigTest, MissingFile) {
  omnirt_status status = OMNIRT_STATUS_OK;
  const std::string missing = dir_ / "missing.yaml";
  HostPtr host = make_host({}, &status, kIsolated, missing.c_str());
  EXPECT_EQ(status, OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr(missing + ": cannot read configuration"));
}

TEST_F(ConfigTest, BadYaml) {
  expect_error("allow: [good]\npriorities: {good: 1\n", 3, 1, "invalid YAML: ");
}

TEST_F(ConfigTest, UnknownTopLevelKey) {
  expect_error("allow: [good]\n\nplugin_dir: [/x]\n", 3, 1,
               "unknown key 'plugin_dir' (expected one of: plugin_dirs, allow, deny, priorities, log_level, "
               "backends, wrap_module, vetting, vetting_cache_dir, vetting_time_limit_ms)");
}

TEST_F(ConfigTest, UnknownNestedKeys) {
  expect_error("backends:\n  cpu:\n    option: {threads: 8}\n", 3, 5,
               "unknown key 'option' in 'backends.cpu' (expected one of: options)");
  expect_error("wrap_module:\n  compile: true\n  policy: {}\n", 3, 3, "unknown key 'policy' in 'wrap_module'");
}

TEST_F(ConfigTest, WrongTypes) {
  expect_error("priorities:\n  cuda: high\n", 2, 9, "'priorities.cuda' must be a 32-bit integer, got 'high'");
  expect_error("allow: cpu\n", 1, 8, "'allow' must be a list of backend names, got 'cpu'");
  expect_error("deny: {a: b}\n", 1, 7, "'deny' must be a list of backend names, got a map");
  expect_error("plugin_dirs: /opt\n", 1, 14, "'plugin_dirs' must be a list of directories");
  expect_error("plugin_dirs: [[a]]\n", 1, 15, "'plugin_dirs' must be a string, got a list");
  expect_error("priorities: [cpu]\n", 1, 13, "'priorities' must be a map, got a list");
  expect_error("wrap_module:\n  compile: maybe\n", 2, 12, "'wrap_module.compile' must be true or false, got 'maybe'");
  expect_error("backends:\n  cpu:\n    options: {threads: [8]}\n", 3, 24,
               "'backends.cpu.options.threads' must be a string, got a list");
  expect_error("[1, 2]\n", 1, 1, "the configuration must be a map, got a list");
}

TEST_F(ConfigTest, BadValues) {
  expect_error("log_level: loud\n", 1, 12,
               "'log_level' must be one of trace, debug, info, warn, error, off; got 'loud'");
  expect_error("allow: [good, Bad-Name]\n", 1, 15, "'Bad-Name' in 'allow' is not a valid backend name");
  expect_error("wrap_module:\n  policies:\n    default: [compile, fast]\n", 3, 24,
               "'wrap_module.policies.default' lists unknown tier 'fast'");
  expect_error("wrap_module:\n  policies:\n    unet: [eager, eager]\n", 3, 19,
               "'wrap_module.policies.unet' lists tier 'eager' twice");
  expect_error("wrap_module:\n  policies:\n    unet: []\n", 3, 11,
               "'wrap_module.policies.unet' must be a non-empty list of tiers");
}

}  // namespace
}  // namespace omnirt_test
