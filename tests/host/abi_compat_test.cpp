// A plugin binary built against the frozen ABI 1.0 headers (tests/abi/v1_0)
// keeps loading and working in this 1.1 host, and none of 1.1's additions is
// believed of it: no 1.1 feature bit, no 1.1 slot called.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.h"

namespace {

using ::testing::HasSubstr;
using namespace omnirt_test;

class Abi10PluginTest : public ::testing::TestWithParam<const char*> {};

TEST_P(Abi10PluginTest, LoadsAsA10PluginAndWorks) {
  HostPtr host = make_host({GetParam()});
  omnirt_backend* backend = nullptr;
  ASSERT_EQ(omnirt_host_get_backend(host.get(), "auto", &backend), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(info_of(backend).abi_version, OMNIRT_MAKE_VERSION(1, 0));

  void* ptr = nullptr;
  ASSERT_EQ(omnirt_malloc(backend, 0, 4096, &ptr), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(omnirt_memset(backend, ptr, 7, 4096), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(static_cast<unsigned char*>(ptr)[4095], 7);
  EXPECT_EQ(omnirt_free(backend, 0, ptr), OMNIRT_STATUS_OK);

  omnirt_stream* stream = nullptr;
  ASSERT_EQ(omnirt_stream_create(backend, 0, &stream), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(omnirt_stream_synchronize(backend, stream), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_stream_destroy(backend, stream), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_device_synchronize(backend, 0), OMNIRT_STATUS_OK);
}

TEST_P(Abi10PluginTest, Reports10FeaturesOnlyWhateverItsBitsSay) {
  HostPtr host = make_host({GetParam()});
  omnirt_backend* backend = nullptr;
  ASSERT_EQ(omnirt_host_get_backend(host.get(), "auto", &backend), OMNIRT_STATUS_OK);
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(omnirt_get_capabilities(backend, &caps), OMNIRT_STATUS_OK);
  // The plugin sets every bit above 1.0's; none of them is a 1.0 feature.
  EXPECT_EQ(caps.features & ~OMNIRT_FEATURES_1_0, 0u);
  EXPECT_EQ(caps.features & OMNIRT_FEATURE_COLLECTIVES, 0u);
  EXPECT_NE(caps.features & OMNIRT_FEATURE_STREAMS, 0u);
  // It wrote 0xab bytes where 1.1's fields lie: no answer of its.
  EXPECT_EQ(caps.unavailable_module_formats, nullptr);
  EXPECT_EQ(caps.num_unavailable_module_formats, 0u);
}

TEST_P(Abi10PluginTest, Its11CallsAreNotSupportedAndNeverReachIt) {
  HostPtr host = make_host({GetParam()});
  omnirt_backend* backend = nullptr;
  ASSERT_EQ(omnirt_host_get_backend(host.get(), "auto", &backend), OMNIRT_STATUS_OK);
  // v1_0_extra has foreign function pointers where these slots lie in 1.1:
  // calling them would crash or return garbage.
  omnirt_stream* stream = nullptr;
  EXPECT_EQ(omnirt_stream_get_default(backend, 0, &stream), OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(last_message(), HasSubstr("does not implement stream_get_default"));
  EXPECT_EQ(stream, nullptr);
  EXPECT_EQ(omnirt_group_start(backend), OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(omnirt_comm_get_async_error(backend, reinterpret_cast<omnirt_comm*>(&stream)),
            OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(last_message(), HasSubstr("does not implement comm_get_async_error"));
  char library[64];
  EXPECT_EQ(omnirt_collectives_library(backend, library, sizeof library),
            OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_STREQ(library, "");
}

INSTANTIATE_TEST_SUITE_P(Frozen10Headers, Abi10PluginTest,
                         ::testing::Values(ZOO_V1_0, ZOO_V1_0_EXTRA),
                         [](const auto& param_info) {
                           return std::string(param_info.index == 0 ? "exact" : "longer_vtable");
                         });

}  // namespace
