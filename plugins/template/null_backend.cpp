// The "null" backend: the smallest honest OmniRT plugin, and the template for
// a new one.
//
// One device, backed by host memory. It implements the required slots only;
// every optional feature is simply absent, so its capability bit is clear and
// the host answers NOT_SUPPORTED for it (PLUGIN_RULES.md rule 7). To grow a
// real backend, add methods: omnirt/cpp/plugin.hpp fills the vtable slot of
// each method the class has (the method list and signatures are in that
// header), turns exceptions into statuses and keeps every other slot NULL.
#include <omnirt/cpp/plugin.hpp>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>

namespace {

using omnirt::plugin::Availability;
using omnirt::plugin::fail;

class NullBackend {
 public:
  // Rule 4: nothing heavy here. A backend with a vendor SDK keeps its options
  // (omnirt::plugin::Options) and dlopens the SDK on first real use. The null
  // backend takes none: any option is a misspelling, refused by name.
  explicit NullBackend(const omnirt_backend_create_args& args) {
    omnirt::plugin::Options(args).check_keys(BACKEND_NAME, {});
  }
  // Rule 10: destroy gives back everything the instance acquired.
  ~NullBackend() {
    for (void* p : live_) std::free(p);
  }
  NullBackend(const NullBackend&) = delete;
  NullBackend& operator=(const NullBackend&) = delete;

  // Rule 5: cheap, no side effects; a reason whenever the answer is no.
  Availability is_available() { return {true, ""}; }

  void capabilities(omnirt_capabilities& caps) {
    caps.dl_device_type = kDLCPU;  // its memory is host memory
    caps.device_count = kDevices;
    caps.features = 0;  // no optional feature: rule 7
    caps.dtypes = 0;    // computes nothing
    caps.vendor = "null";
  }

  int32_t device_count() { return kDevices; }

  void device_info(int32_t device, omnirt_device_info& info) {
    check_device(device);
    info.dl_device_type = kDLCPU;
    std::strncpy(info.name, "null device (host memory)", sizeof info.name - 1);
    std::strncpy(info.arch, "host", sizeof info.arch - 1);
    info.total_memory_bytes = memory_bytes_;
  }

  void* malloc_device(int32_t device, size_t size) {
    check_device(device);
    if (size == 0) return nullptr;
    // More than the device has is OUT_OF_MEMORY without asking the system.
    if (size > memory_bytes_) {
      fail(OMNIRT_STATUS_OUT_OF_MEMORY, "cannot allocate " + std::to_string(size) +
                                            " bytes: the device has " + std::to_string(memory_bytes_));
    }
    void* p = std::aligned_alloc(kAlignment, (size + kAlignment - 1) / kAlignment * kAlignment);
    if (p == nullptr) {
      fail(OMNIRT_STATUS_OUT_OF_MEMORY, "cannot allocate " + std::to_string(size) + " bytes");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    live_.insert(p);
    return p;
  }

  // Tracking live blocks turns a double free into INVALID_ARGUMENT instead of
  // heap corruption (rules 8 and 12).
  void free_device(int32_t device, void* ptr) {
    check_device(device);
    if (ptr == nullptr) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (live_.erase(ptr) == 0) {
        fail(OMNIRT_STATUS_INVALID_ARGUMENT,
             "free_device: pointer was not allocated by this backend, or already freed");
      }
    }
    std::free(ptr);
  }

  // Every kind is a host copy here; a real backend calls its SDK per kind.
  void memcpy_sync(void* dst, const void* src, size_t size, int32_t kind) {
    if (kind < OMNIRT_MEMCPY_HOST_TO_HOST || kind > OMNIRT_MEMCPY_DEVICE_TO_DEVICE) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, "memcpy_sync: unknown kind " + std::to_string(kind));
    }
    if (size != 0) std::memmove(dst, src, size);
  }

  void memset_sync(void* ptr, int32_t value, size_t size) {
    if (size != 0) std::memset(ptr, value, size);
  }

  // Every call above completes before it returns: nothing to wait for.
  void device_synchronize(int32_t device) { check_device(device); }

 private:
  static constexpr int32_t kDevices = 1;
  static constexpr size_t kAlignment = 256;  // the ABI's minimum for device memory

  static void check_device(int32_t device) {
    if (device < 0 || device >= kDevices) {
      fail(OMNIRT_STATUS_OUT_OF_RANGE, "device " + std::to_string(device) +
                                           " does not exist (the null backend has 1)");
    }
  }

  // The device's memory is the machine's.
  const uint64_t memory_bytes_ = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                                 static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
  std::mutex mutex_;  // rule 9: the host calls from any thread
  std::unordered_set<void*> live_;
};

}  // namespace

// The plugin's one exported symbol (rule 2); negotiation is the helper's (rule 3).
OMNIRT_DEFINE_BACKEND(NullBackend, BACKEND_NAME, OMNIRT_BACKEND_VERSION)
