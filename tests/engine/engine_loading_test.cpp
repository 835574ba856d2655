// How the cpu plugin finds and loads its TorchScript engine, without libtorch
// in the test: never while probing, only on the first module use; a plugin
// whose folder has no engine reports no modules and says why.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "engine_test_support.h"

namespace omnirt::engine_testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The engine this test's plugin would load, if it is loaded in this process.
bool engine_loaded() {
  const std::string engine = std::string(OMNIRT_TEST_CPU_PLUGIN_DIR) + "/libomnirt_cpu_engine.so";
  void* handle = dlopen(engine.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle != nullptr) dlclose(handle);
  return handle != nullptr;
}

// A copy of the plugin alone in a fresh folder: no engine next to it.
class LonePlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string folder = (fs::temp_directory_path() / "omnirt-lone-cpu-XXXXXX").string();
    ASSERT_NE(mkdtemp(folder.data()), nullptr);
    dir_ = folder;
    fs::copy_file(OMNIRT_TEST_CPU_PLUGIN_PATH, dir_ / "libomnirt_backend_cpu.so");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string plugin() const { return (dir_ / "libomnirt_backend_cpu.so").string(); }

  fs::path dir_;
};

TEST_F(LonePlugin, WithoutTheEngineModulesAreNotSupportedAndSaySo) {
  CpuInstance cpu(plugin().c_str());
  const omnirt_capabilities caps = cpu.capabilities();
  EXPECT_EQ(caps.features & (OMNIRT_FEATURE_MODULES | OMNIRT_FEATURE_COMPILE), 0u);
  EXPECT_EQ(caps.num_module_formats, 0u);
  EXPECT_NE(caps.features & OMNIRT_FEATURE_NAMED_OPS, 0u);

  omnirt_executable* exe = nullptr;
  EXPECT_EQ(cpu.load("PK", OMNIRT_TIER_EAGER, &exe), OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(last_error().message, HasSubstr(dir_.string() + "/libomnirt_cpu_engine.so"));
  EXPECT_THAT(last_error().message, HasSubstr("not installed"));
  EXPECT_EQ(exe, nullptr);
}

TEST(EngineLoading, UnknownFormatIsNotSupportedNamingIt) {
  CpuInstance cpu;
  omnirt_executable* exe = nullptr;
  EXPECT_EQ(cpu.load("ir", OMNIRT_TIER_COMPILE, &exe, "onnx"), OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(last_error().message, HasSubstr("module format 'onnx' is not supported"));
  EXPECT_FALSE(engine_loaded());
}

// The cpu engine loads no AOTInductor packages (Debian's libtorch 1.13 has no
// AOTInductor; a build without the engine has none either): the format is
// known, not loadable, and both the capabilities and the load say why,
// loading no engine.
TEST(EngineLoading, AotiPackagesAreNotSupportedWithTheReason) {
  CpuInstance cpu;
  const omnirt_capabilities caps = cpu.capabilities();
  ASSERT_EQ(caps.num_unavailable_module_formats, 1u);
  EXPECT_STREQ(caps.unavailable_module_formats[0].format, "aoti");
  const std::string reason = caps.unavailable_module_formats[0].reason;
#ifdef OMNIRT_TEST_HAVE_ENGINE
  EXPECT_THAT(reason, HasSubstr("AOTInductor"));
#else
  EXPECT_THAT(reason, HasSubstr("the cpu engine was not built"));
#endif
  for (size_t i = 0; i < caps.num_module_formats; ++i) EXPECT_STRNE(caps.module_formats[i], "aoti");
  omnirt_executable* exe = nullptr;
  EXPECT_EQ(cpu.load("PK", OMNIRT_TIER_EAGER, &exe, "aoti"), OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(last_error().message, HasSubstr("module format 'aoti' cannot be loaded: " + reason));
  EXPECT_EQ(exe, nullptr);
  EXPECT_FALSE(engine_loaded());
}

TEST(EngineLoading, SourceSetsExactlyOneOfDataAndPath) {
  CpuInstance cpu;
  const char bytes[] = "PK";
  for (bool with_data : {false, true}) {
    omnirt_module_source source{};
    source.struct_size = sizeof source;
    source.format = "torchscript";
    source.data = with_data ? bytes : nullptr;
    source.size = with_data ? sizeof bytes : 0;
    source.path = with_data ? "/tmp/model.pt" : nullptr;
    omnirt_executable* exe = nullptr;
    EXPECT_EQ(cpu.v().module_load(cpu.s(), 0, &source, OMNIRT_TIER_EAGER, nullptr, &exe),
              OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_THAT(last_error().message, HasSubstr("exactly one of data and path"));
  }
}

TEST(EngineLoading, BadThreadsOptionFailsCreate) {
  for (const char* value : {"0", "-2", "two", "3x", "", "100000"}) {
    SCOPED_TRACE(value);
    CpuInstance cpu(OMNIRT_TEST_CPU_PLUGIN_PATH, {{"threads", value}});
    if (std::string(value).empty()) {  // an empty value is the default
      EXPECT_EQ(cpu.create_status(), OMNIRT_STATUS_OK);
      continue;
    }
    EXPECT_EQ(cpu.create_status(), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_THAT(last_error().message, HasSubstr("option threads must be an integer in 1..4096"));
  }
}

TEST(EngineLoading, AnUnknownOptionFailsCreateNamingItAndTheKnownOnes) {
  CpuInstance cpu(OMNIRT_TEST_CPU_PLUGIN_PATH, {{"thread", "4"}});
  EXPECT_EQ(cpu.create_status(), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_error().message, HasSubstr("cpu: unknown option 'thread' (known options: threads, gloo_hostname)"));
}

#ifdef OMNIRT_TEST_HAVE_ENGINE
TEST(EngineLoading, ProbingLeavesTheEngineUnloadedAndTheFirstModuleUseLoadsIt) {
  CpuInstance cpu;
  int32_t available = 0;
  char reason[128];
  ASSERT_EQ(cpu.v().is_available(cpu.s(), &available, reason, sizeof reason), OMNIRT_STATUS_OK);
  const omnirt_capabilities caps = cpu.capabilities();
  EXPECT_NE(caps.features & OMNIRT_FEATURE_MODULES, 0u);
  EXPECT_NE(caps.features & OMNIRT_FEATURE_COMPILE, 0u);
  ASSERT_EQ(caps.num_module_formats, 1u);
  EXPECT_STREQ(caps.module_formats[0], "torchscript");
  EXPECT_FALSE(engine_loaded());

  omnirt_executable* exe = nullptr;
  EXPECT_EQ(cpu.load("not a zip archive", OMNIRT_TIER_EAGER, &exe), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(engine_loaded());
}

// engine_prepare loads the engine ahead of module_load, so that the host can
// time it; a format no engine loads is refused without loading anything.
TEST(EngineLoading, EnginePrepareLoadsTheEngineOfItsFormatOnly) {
  CpuInstance cpu;
  EXPECT_NE(cpu.capabilities().features & OMNIRT_FEATURE_ENGINE_PREPARE, 0u);
  char description[64] = "";
  EXPECT_EQ(cpu.v().engine_prepare(cpu.s(), "onnx", description, sizeof description),
            OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(last_error().message, HasSubstr("module format 'onnx' is not supported"));
  EXPECT_FALSE(engine_loaded());
  ASSERT_EQ(cpu.v().engine_prepare(cpu.s(), "torchscript", description, sizeof description),
            OMNIRT_STATUS_OK)
      << last_error().message;
  EXPECT_TRUE(engine_loaded());
  EXPECT_THAT(description, ::testing::StartsWith("libtorch "));
  // Again: nothing more to load.
  EXPECT_EQ(cpu.v().engine_prepare(cpu.s(), "torchscript", description, sizeof description),
            OMNIRT_STATUS_OK);
}
#endif

}  // namespace
}  // namespace omnirt::engine_testing
