// is_available over a backend's life, through its vtable: the host asks once,
// at load, before any device call, so what a backend says after loading its
// runtime (PLUGIN_RULES 5) is only visible here.
#include <dlfcn.h>

#include <memory>
#include <string>

#include "omnirt/backend.h"
#include "vendor_test_support.h"

namespace omnirt::vendor_test {
namespace {

using ::testing::HasSubstr;

omnirt_status record_error(omnirt_status status, int64_t, const char*) { return status; }
void ignore_log(int32_t, const char*, const char*) {}

const omnirt_host_services kServices{sizeof(omnirt_host_services), OMNIRT_ABI_VERSION, record_error,
                                     ignore_log};

// One backend instance made straight from the plugin's entry point.
class DirectBackend {
 public:
  DirectBackend(const Vendor& vendor, const std::string& library) {
    plugin_ = dlopen(vendor.plugin, RTLD_NOW | RTLD_LOCAL);
    if (plugin_ == nullptr) {
      ADD_FAILURE() << dlerror();
      return;
    }
    auto entry =
        reinterpret_cast<omnirt_backend_entry_fn>(dlsym(plugin_, OMNIRT_BACKEND_ENTRY_SYMBOL));
    const omnirt_backend_entry_args args{sizeof args, OMNIRT_ABI_VERSION, OMNIRT_ABI_VERSION,
                                         &kServices};
    vtable_ = entry(&args);
    const char* keys[] = {"library"};
    const char* values[] = {library.c_str()};
    const omnirt_backend_create_args create{sizeof create, keys, values, 1};
    EXPECT_EQ(vtable_->create(&create, &state_), OMNIRT_STATUS_OK);
  }
  ~DirectBackend() {
    if (vtable_ != nullptr) vtable_->destroy(state_);
    if (plugin_ != nullptr) dlclose(plugin_);
  }

  // {available, reason}
  std::pair<int32_t, std::string> availability() {
    int32_t available = -1;
    char reason[512] = {};
    EXPECT_EQ(vtable_->is_available(state_, &available, reason, sizeof reason), OMNIRT_STATUS_OK);
    return {available, reason};
  }
  int32_t device_count() {
    int32_t count = -1;
    EXPECT_EQ(vtable_->get_device_count(state_, &count), OMNIRT_STATUS_OK);
    return count;
  }

 private:
  void* plugin_ = nullptr;
  const omnirt_backend_vtable* vtable_ = nullptr;
  omnirt_backend_state* state_ = nullptr;
};

class VendorAvailability : public ::testing::TestWithParam<const Vendor*> {
 protected:
  const Vendor& vendor() const { return *GetParam(); }
  ScopedEnvironment env_;
};

TEST_P(VendorAvailability, AfterLoadingItReportsTheRuntimesAnswer) {
  env_.unset("OMNIRT_SIM_FAIL_INIT");
  env_.unset("OMNIRT_SIM_DEVICE_COUNT");
  DirectBackend backend(vendor(), vendor().sim);
  EXPECT_EQ(backend.availability().first, 1) << "the library file exists";
  EXPECT_EQ(backend.device_count(), 2);
  EXPECT_EQ(backend.availability().first, 1);
}

TEST_P(VendorAvailability, AFailedInitializationBecomesTheReason) {
  env_.set("OMNIRT_SIM_FAIL_INIT", "1");
  DirectBackend backend(vendor(), vendor().sim);
  EXPECT_EQ(backend.availability().first, 1) << "nothing has been tried yet";
  EXPECT_EQ(backend.device_count(), 0);
  const auto [available, reason] = backend.availability();
  EXPECT_EQ(available, 0);
  EXPECT_THAT(reason, HasSubstr(std::string(vendor().init_call) + " failed"));
  EXPECT_THAT(reason, HasSubstr("OMNIRT_SIM_FAIL_INIT"));
}

TEST_P(VendorAvailability, NoDevicesIsTheReason) {
  env_.unset("OMNIRT_SIM_FAIL_INIT");
  env_.set("OMNIRT_SIM_DEVICE_COUNT", "0");
  DirectBackend backend(vendor(), vendor().sim);
  EXPECT_EQ(backend.device_count(), 0);
  const auto [available, reason] = backend.availability();
  EXPECT_EQ(available, 0);
  EXPECT_THAT(reason, HasSubstr(std::string(vendor().soname) + " (" + vendor().sim +
                                ") reports 0 devices"));
}

// The other vendor's runtime is a real library, just not this vendor's.
TEST_P(VendorAvailability, ALibraryLackingRequiredSymbolsIsNamed) {
  const Vendor& other = &vendor() == &ascend() ? cambricon() : ascend();
  DirectBackend backend(vendor(), other.sim);
  EXPECT_EQ(backend.device_count(), 0);
  const auto [available, reason] = backend.availability();
  EXPECT_EQ(available, 0);
  EXPECT_THAT(reason, HasSubstr(std::string(other.sim) + " lacks required"));
  EXPECT_THAT(reason, HasSubstr(vendor().init_call));
}

TEST_P(VendorAvailability, AFileThatIsNoLibraryIsNamedWithTheLoadersError) {
  std::string path = (std::filesystem::temp_directory_path() / "omnirt_not_a_library_XXXXXX").string();
  const int fd = mkstemp(path.data());
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "not ELF", 7), 7);
  close(fd);
  {
    DirectBackend backend(vendor(), path.c_str());
    EXPECT_EQ(backend.availability().first, 1) << "a file is there";
    EXPECT_EQ(backend.device_count(), 0);
    const auto [available, reason] = backend.availability();
    EXPECT_EQ(available, 0);
    EXPECT_THAT(reason, HasSubstr(path));
  }
  unlink(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Backends, VendorAvailability, ::testing::Values(&ascend(), &cambricon()),
                         backend_name);

}  // namespace
}  // namespace omnirt::vendor_test
