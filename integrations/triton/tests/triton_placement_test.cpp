// Instance placement (placement.h) on a real host over the wrap tests' two
// fake backends: wrapfake computes on host memory, wrapdev in "device"
// memory (kDLExtDev); both run modules, in every build.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "error.h"
#include "omnirt/cpp/host.hpp"
#include "placement.h"
#include "triton_test_paths.h"

namespace omnirt::triton {
namespace {

using ::testing::HasSubstr;

class PlacementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(host_.create({TRITON_TEST_HOST_PLUGIN, TRITON_TEST_DEVICE_PLUGIN},
                           OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR),
              OMNIRT_STATUS_OK)
        << omnirt::last_error().message;
  }

  // The Error `name`/`kind`/`device` placement throws (fails the test when none).
  Error refusal(const std::string& name, TRITONSERVER_InstanceGroupKind kind, int32_t device = 0) {
    try {
      place_instance(host_.get(), name, kind, device);
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "placed '" << name << "' without an error";
    return Error(TRITONSERVER_ERROR_UNKNOWN, "");
  }

  omnirt::Host host_;
};

TEST_F(PlacementTest, AutoPicksTheBackendWhoseMemoryFitsTheKind) {
  const Placement cpu = place_instance(host_.get(), "auto", TRITONSERVER_INSTANCEGROUPKIND_CPU, 5);
  EXPECT_EQ(cpu.backend_name, "wrapfake");
  EXPECT_EQ(cpu.device, 0);  // KIND_CPU ignores Triton's device id
  EXPECT_TRUE(cpu.host_memory);
  EXPECT_EQ(cpu.text(), "wrapfake:0");

  const Placement gpu = place_instance(host_.get(), "auto", TRITONSERVER_INSTANCEGROUPKIND_GPU, 0);
  EXPECT_EQ(gpu.backend_name, "wrapdev");
  EXPECT_FALSE(gpu.host_memory);
  EXPECT_EQ(gpu.device_type, kDLExtDev);

  const Placement any = place_instance(host_.get(), "wrapdev", TRITONSERVER_INSTANCEGROUPKIND_MODEL, 7);
  EXPECT_EQ(any.text(), "wrapdev:0");
}

TEST_F(PlacementTest, RefusalsSayWhy) {
  Error e = refusal("wrapdev", TRITONSERVER_INSTANCEGROUPKIND_CPU);
  EXPECT_EQ(e.code(), TRITONSERVER_ERROR_INVALID_ARG);
  EXPECT_THAT(e.what(),
              HasSubstr("KIND_CPU instances cannot run on OmniRT backend 'wrapdev': it computes in its "
                        "own device memory"));
  e = refusal("wrapfake", TRITONSERVER_INSTANCEGROUPKIND_GPU);
  EXPECT_THAT(e.what(), HasSubstr("KIND_GPU needs a backend with device memory"));
  e = refusal("auto", TRITONSERVER_INSTANCEGROUPKIND_GPU, 3);
  EXPECT_EQ(e.code(), TRITONSERVER_ERROR_INVALID_ARG);
  EXPECT_THAT(
      e.what(),
      HasSubstr("KIND_GPU device 3 does not exist on OmniRT backend 'wrapdev', which has 1 device(s)"));
  e = refusal("nope", TRITONSERVER_INSTANCEGROUPKIND_CPU);
  EXPECT_EQ(e.code(), TRITONSERVER_ERROR_NOT_FOUND);
  EXPECT_THAT(e.what(), HasSubstr("OmniRT backend 'nope' cannot be used: NOT_FOUND: "));
}

TEST(Placement, AutoListsWhyEachBackendWasPassedOver) {
  omnirt::Host host;
  ASSERT_EQ(
      host.create({TRITON_TEST_HOST_PLUGIN}, OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR),
      OMNIRT_STATUS_OK);
  try {
    place_instance(host.get(), "auto", TRITONSERVER_INSTANCEGROUPKIND_GPU, 0);
    FAIL() << "placed a KIND_GPU instance with host-memory backends only";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), TRITONSERVER_ERROR_UNAVAILABLE);
    EXPECT_THAT(e.what(),
                HasSubstr("no OmniRT backend can serve KIND_GPU instances: wrapfake: it computes on host "
                          "memory"));
  }
}

}  // namespace
}  // namespace omnirt::triton
