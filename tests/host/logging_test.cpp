// The host's logger: its level (OMNIRT_LOG_LEVEL, config log_level, default
// warn), plugin lines through omnirt_host_services::log, and isolation from
// an embedder's own spdlog setup.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <string>

#include "test_support.h"

namespace omnirt_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// stderr while creating a host over the good plugin.
std::string log_of_host_creation(uint32_t flags, const char* config = nullptr) {
  ::testing::internal::CaptureStderr();
  HostPtr host = make_host({ZOO_GOOD}, flags, config);
  return ::testing::internal::GetCapturedStderr();
}

TEST(Logging, DefaultLevelIsWarn) {
  ScopedEnv level("OMNIRT_LOG_LEVEL", std::nullopt);
  EXPECT_EQ(log_of_host_creation(OMNIRT_HOST_SKIP_INSTALLED_DIR), "");
}

TEST(Logging, LevelFromTheEnvironment) {
  ScopedEnv level("OMNIRT_LOG_LEVEL", std::string("info"));
  const std::string log = log_of_host_creation(OMNIRT_HOST_SKIP_INSTALLED_DIR);
  EXPECT_THAT(log, HasSubstr("[omnirt] [info] loaded backend 'good' 1.0.0 (ABI 1.1)"));
  EXPECT_THAT(log, Not(HasSubstr("[debug]")));
}

TEST(Logging, LevelFromTheConfigurationAndPluginLines) {
  TempDir dir;
  write_file(dir / "omnirt.yaml", "log_level: debug\n");
  const std::string config = dir / "omnirt.yaml";
  const std::string log = log_of_host_creation(kIsolated, config.c_str());
  EXPECT_THAT(log, HasSubstr("[debug] [good] fake: created with 1 device(s)"));
  EXPECT_THAT(log, HasSubstr("stage times (us)"));
}

TEST(Logging, EnvironmentOverridesTheConfiguration) {
  TempDir dir;
  write_file(dir / "omnirt.yaml", "log_level: debug\n");
  const std::string config = dir / "omnirt.yaml";
  ScopedEnv level("OMNIRT_LOG_LEVEL", std::string("off"));
  EXPECT_EQ(log_of_host_creation(OMNIRT_HOST_SKIP_INSTALLED_DIR, config.c_str()), "");
}

TEST(Logging, BadLevelInTheEnvironmentIsReportedNotFatal) {
  ScopedEnv level("OMNIRT_LOG_LEVEL", std::string("loud"));
  const std::string log = log_of_host_creation(OMNIRT_HOST_SKIP_INSTALLED_DIR);
  EXPECT_THAT(log, HasSubstr("ignoring OMNIRT_LOG_LEVEL='loud'"));
}

TEST(Logging, EmbeddersSpdlogIsLeftAlone) {
  spdlog::set_level(spdlog::level::critical);
  ScopedEnv level("OMNIRT_LOG_LEVEL", std::string("trace"));
  log_of_host_creation(OMNIRT_HOST_SKIP_INSTALLED_DIR);
  EXPECT_EQ(spdlog::get_level(), spdlog::level::critical);
  EXPECT_EQ(spdlog::get("omnirt"), nullptr);
  EXPECT_NE(spdlog::default_logger()->name(), "omnirt");
}

}  // namespace
}  // namespace omnirt_test
