// Devices: count and descriptions are sane, and each device synchronizes
// (the slot contract of get_device_count, get_device_info, device_synchronize).
#include <cstring>

#include "kit.hpp"

namespace omnirt::conformance {
namespace {

class Devices : public KitTest {};

KIT_TEST(Devices, InfoDescribesEachDevice, kContract) {
  for (int32_t d = 0; d < kit().device_count; ++d) {
    SCOPED_TRACE("device " + std::to_string(d));
    omnirt_device_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    KIT_ASSERT_OK(omnirt_get_device_info(backend(), d, &info));
    EXPECT_EQ(info.struct_size, sizeof info) << "struct_size must stay as the caller set it";
    EXPECT_EQ(info.index, d);
    EXPECT_EQ(info.dl_device_type, caps().dl_device_type)
        << "device memory type differs from the backend's";
    ASSERT_NE(std::memchr(info.name, '\0', sizeof info.name), nullptr) << "name not terminated";
    ASSERT_NE(std::memchr(info.arch, '\0', sizeof info.arch), nullptr) << "arch not terminated";
    EXPECT_STRNE(info.name, "") << "device name is empty";
    EXPECT_GE(info.compute_units, 0);
  }
}

KIT_TEST(Devices, SynchronizeSucceedsOnEachDevice, kContract) {
  for (int32_t d = 0; d < kit().device_count; ++d) {
    KIT_EXPECT_OK(omnirt_device_synchronize(backend(), d)) << "device " << d;
  }
}

}  // namespace
}  // namespace omnirt::conformance
