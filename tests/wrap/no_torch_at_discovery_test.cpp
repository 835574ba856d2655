// Discovery must not load libtorch (DESIGN decision 4): after creating a
// host over the cpu plugin's folder, where its TorchScript engine lives too,
// and asking for capabilities and devices, no libtorch is mapped. Wrapping a
// module then does load it, which shows the check can see it.
#include <gtest/gtest.h>
#include <link.h>

#include <filesystem>
#include <string>

#include "wrap_test_util.h"

namespace {

bool libtorch_loaded() {
  bool found = false;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const std::string name = info->dlpi_name != nullptr ? info->dlpi_name : "";
        if (name.find("libtorch") != std::string::npos) *static_cast<bool*>(data) = true;
        return 0;
      },
      &found);
  return found;
}

TEST(Discovery, LoadsNoLibtorchUntilAModuleIsWrapped) {
  ASSERT_FALSE(libtorch_loaded()) << "this test program must not link libtorch";
  const std::string dir = std::filesystem::path(WRAP_CPU_PLUGIN).parent_path().string();
  wraptest::Host host({dir});
  ASSERT_EQ(host.status(), OMNIRT_STATUS_OK) << wraptest::last_message();
  omnirt_backend* cpu = host.backend("cpu");
  ASSERT_NE(cpu, nullptr);
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(omnirt_get_capabilities(cpu, &caps), OMNIRT_STATUS_OK);
  int32_t devices = 0;
  ASSERT_EQ(omnirt_get_device_count(cpu, &devices), OMNIRT_STATUS_OK);
  EXPECT_FALSE(libtorch_loaded()) << "discovery loaded libtorch";

  const std::string model = std::string(WRAP_MODELS_DIR) + "/mlp.pt";
  if (caps.num_module_formats == 0 || !std::filesystem::exists(model)) {
    GTEST_SKIP() << "no TorchScript engine or no test model: the positive half is skipped";
  }
  omnirt_module_source src{};
  src.struct_size = sizeof src;
  src.format = "torchscript";
  src.path = model.c_str();
  omnirt_module* m = nullptr;
  ASSERT_EQ(omnirt_wrap_module(cpu, &src, "mlp", nullptr, nullptr, &m), OMNIRT_STATUS_OK)
      << wraptest::last_message();
  EXPECT_TRUE(libtorch_loaded());
  omnirt_module_destroy(m);
}

}  // namespace
