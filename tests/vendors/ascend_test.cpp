// What only the ascend backend has: AscendCL's malloc policy, its per-thread
// context, and one process-wide aclInit shared by several hosts.
#include <dlfcn.h>

#include <memory>
#include <string>

#include "vendor_test_support.h"

namespace omnirt::vendor_test {
namespace {

using ::testing::HasSubstr;

#define ASSERT_OK(call) ASSERT_EQ((call), OMNIRT_STATUS_OK) << last_message()

// The simulated libascendcl.so, opened by the test itself to play the part of
// another AscendCL user in the process.
class SimulatedAcl {
 public:
  SimulatedAcl() : handle_(dlopen(ascend().sim, RTLD_NOW | RTLD_LOCAL)) {}
  ~SimulatedAcl() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  template <class Fn>
  Fn* get(const char* name) const {
    return reinterpret_cast<Fn*>(dlsym(handle_, name));
  }
  int outstanding() const { return get<int()>("omnirt_sim_outstanding")(); }

 private:
  void* handle_;
};

class Ascend : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* variable : ascend().variables) env_.unset(variable);
    env_.unset("OMNIRT_SIM_MEMORY_BYTES");
  }

  std::unique_ptr<Host> make_host(const std::string& malloc_policy = "") {
    std::map<std::string, std::string> options{{"library", ascend().sim}};
    if (!malloc_policy.empty()) options["malloc_policy"] = malloc_policy;
    return std::make_unique<Host>(ascend(), options);
  }
  static omnirt_backend* backend(const Host& host) {
    omnirt_backend* b = nullptr;
    EXPECT_EQ(omnirt_host_get_backend(host.get(), "ascend", &b), OMNIRT_STATUS_OK)
        << last_message();
    return b;
  }
  // Device memory an allocation of `size` takes under `policy`.
  size_t footprint(const std::string& policy, size_t size) {
    auto host = make_host(policy);
    omnirt_backend* b = backend(*host);
    size_t before = 0;
    size_t after = 0;
    size_t total = 0;
    EXPECT_EQ(omnirt_mem_get_info(b, 0, &before, &total), OMNIRT_STATUS_OK);
    void* ptr = nullptr;
    EXPECT_EQ(omnirt_malloc(b, 0, size, &ptr), OMNIRT_STATUS_OK) << last_message();
    EXPECT_EQ(omnirt_mem_get_info(b, 0, &after, &total), OMNIRT_STATUS_OK);
    EXPECT_EQ(omnirt_free(b, 0, ptr), OMNIRT_STATUS_OK);
    return before - after;
  }

  ScopedEnvironment env_;
};

// The simulation charges huge pages in 2 MiB and normal memory in 512 bytes.
TEST_F(Ascend, TheMallocPolicyReachesAclrtMalloc) {
  constexpr size_t kHuge = size_t{2} << 20;
  EXPECT_EQ(footprint("", 1024), 1024u) << "huge_first: small requests stay normal";
  EXPECT_EQ(footprint("huge_first", size_t{1} << 20), kHuge);
  EXPECT_EQ(footprint("huge_only", 1024), kHuge);
  EXPECT_EQ(footprint("normal_only", size_t{1} << 20), size_t{1} << 20);
}

TEST_F(Ascend, AnUnknownMallocPolicyIsRejected) {
  auto host = make_host("huge_sometimes");
  omnirt_backend* b = nullptr;
  EXPECT_EQ(omnirt_host_get_backend(host->get(), "ascend", &b), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("malloc_policy=huge_sometimes"));
  EXPECT_THAT(last_message(), HasSubstr("huge_first, huge_only, normal_only"));
}

// PLUGIN_RULES 11: the backend switches contexts only for its own calls.
TEST_F(Ascend, TheCallersContextSurvivesCallsOnAnotherDevice) {
  SimulatedAcl acl;
  ASSERT_EQ(acl.get<int(const char*)>("aclInit")(nullptr), 0);
  ASSERT_EQ(acl.get<int(int32_t)>("aclrtSetDevice")(1), 0);
  void* mine = nullptr;
  ASSERT_EQ(acl.get<int(void**)>("aclrtGetCurrentContext")(&mine), 0);
  {
    auto host = make_host();
    omnirt_backend* b = backend(*host);
    void* d = nullptr;
    omnirt_stream* stream = nullptr;
    ASSERT_OK(omnirt_malloc(b, 0, 256, &d));
    ASSERT_OK(omnirt_memset(b, d, 1, 256));
    ASSERT_OK(omnirt_stream_create(b, 0, &stream));
    ASSERT_OK(omnirt_stream_destroy(b, stream));
    ASSERT_OK(omnirt_free(b, 0, d));
    void* now = nullptr;
    ASSERT_EQ(acl.get<int(void**)>("aclrtGetCurrentContext")(&now), 0);
    EXPECT_EQ(now, mine);
  }
  // The backend found AscendCL initialized, so it left it initialized.
  EXPECT_EQ(acl.get<int(int32_t)>("aclrtResetDevice")(1), 0);
  EXPECT_EQ(acl.outstanding(), 1) << "only the test's own aclInit is left";
  EXPECT_EQ(acl.get<int()>("aclFinalize")(), 0);
}

// PLUGIN_RULES 10: two hosts, one AscendCL; the last one out finalizes it.
TEST_F(Ascend, HostsShareOneInitialization) {
  SimulatedAcl acl;
  auto first = make_host();
  auto second = make_host();
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_OK(omnirt_malloc(backend(*first), 0, 64, &a));
  ASSERT_OK(omnirt_malloc(backend(*second), 1, 64, &b));
  ASSERT_OK(omnirt_free(backend(*first), 0, a));
  first.reset();
  ASSERT_OK(omnirt_memset(backend(*second), b, 0, 64));
  ASSERT_OK(omnirt_free(backend(*second), 1, b));
  EXPECT_GT(acl.outstanding(), 0) << "the second host still holds AscendCL";
  second.reset();
  EXPECT_EQ(acl.outstanding(), 0);
}

}  // namespace
}  // namespace omnirt::vendor_test
