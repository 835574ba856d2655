// What only the cambricon backend has: CNRT's per-thread current device.
#include <dlfcn.h>

#include <string>

#include "vendor_test_support.h"

namespace omnirt::vendor_test {
namespace {

#define ASSERT_OK(call) ASSERT_EQ((call), OMNIRT_STATUS_OK) << last_message()

// PLUGIN_RULES 11: the backend selects devices only for its own calls.
TEST(Cambricon, TheCallersDeviceSurvivesCallsOnAnotherDevice) {
  ScopedEnvironment env;
  env.unset("NEUWARE_HOME");
  void* cnrt = dlopen(cambricon().sim, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(cnrt, nullptr) << dlerror();
  const auto set_device = reinterpret_cast<int (*)(int)>(dlsym(cnrt, "cnrtSetDevice"));
  const auto get_device = reinterpret_cast<int (*)(int*)>(dlsym(cnrt, "cnrtGetDevice"));
  {
    Host host(cambricon(), {{"library", cambricon().sim}});
    omnirt_backend* b = nullptr;
    ASSERT_OK(omnirt_host_get_backend(host.get(), "cambricon", &b));
    int32_t count = 0;
    ASSERT_OK(omnirt_get_device_count(b, &count));
    ASSERT_EQ(set_device(1), 0);
    void* d = nullptr;
    omnirt_event* event = nullptr;
    ASSERT_OK(omnirt_malloc(b, 0, 256, &d));
    ASSERT_OK(omnirt_memset(b, d, 1, 256));
    ASSERT_OK(omnirt_event_create(b, 0, &event));
    ASSERT_OK(omnirt_event_destroy(b, event));
    ASSERT_OK(omnirt_free(b, 0, d));
    int now = -1;
    ASSERT_EQ(get_device(&now), 0);
    EXPECT_EQ(now, 1);
    ASSERT_EQ(set_device(0), 0);
  }
  dlclose(cnrt);
}

}  // namespace
}  // namespace omnirt::vendor_test
