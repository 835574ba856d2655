// Entry point, options and discovery of the ascend backend.
#include "ascend_backend.h"

#include <dlpack/dlpack.h>

#include <string>
#include <utility>

#include "acl_status.h"

namespace omnirt::ascend {
namespace {

// What this backend maps when libascendcl.so has every symbol it binds.
// Never set: STREAM_ORDERED_ALLOC (AscendCL has no stream-ordered allocator),
// GRAPH_CAPTURE (not bound yet), MODULES, COMPILE and NAMED_OPS (no engine in
// this plugin).
constexpr uint64_t kMappedFeatures =
    OMNIRT_FEATURE_HOST_ALLOC | OMNIRT_FEATURE_ASYNC_COPY | OMNIRT_FEATURE_STREAMS |
    OMNIRT_FEATURE_EVENTS | OMNIRT_FEATURE_EVENT_TIMING | OMNIRT_FEATURE_STREAM_WAIT_EVENT |
    OMNIRT_FEATURE_MEM_INFO | OMNIRT_FEATURE_MEMORY_STATS | OMNIRT_FEATURE_PEER_COPY |
    OMNIRT_FEATURE_DEFAULT_STREAM;

aclrtMemMallocPolicy parse_malloc_policy(const std::string& value) {
  if (value.empty() || value == "huge_first") return ACL_MEM_MALLOC_HUGE_FIRST;
  if (value == "huge_only") return ACL_MEM_MALLOC_HUGE_ONLY;
  if (value == "normal_only") return ACL_MEM_MALLOC_NORMAL_ONLY;
  plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
               "ascend: option malloc_policy=" + value +
                   " is not one of huge_first, huge_only, normal_only");
}

// Where libascendcl.so is looked for: README.md, "Finding AscendCL".
plugin_common::LibraryLocator acl_locator(const plugin::Options& options) {
  return plugin_common::LibraryLocator(
      {"libascendcl.so",
       options.get("library"),
       {{"ASCEND_HOME_PATH", "lib64"}, {"ASCEND_TOOLKIT_HOME", "lib64"}},
       {"/usr/local/Ascend/ascend-toolkit/latest/lib64"}});
}

plugin_common::LazyRuntime<AclRuntime>::Factory acl_factory(const plugin::Options& options) {
  return [config = options.get("acl_config")](plugin_common::DynamicLibrary library) {
    return std::make_unique<AclRuntime>(std::move(library), config);
  };
}

}  // namespace

AscendBackend::AscendBackend(const omnirt_backend_create_args& args)
    : runtime_("ascend", acl_locator(plugin::Options(args)), acl_factory(plugin::Options(args))),
      hccl_(plugin::Options(args).get("hccl_library")) {
  plugin::Options(args).check_keys("ascend", {"library", "malloc_policy", "acl_config", "hccl_library"});
  malloc_policy_ = parse_malloc_policy(plugin::Options(args).get("malloc_policy"));
}

AscendBackend::~AscendBackend() { destroy_leftovers(); }

plugin::Availability AscendBackend::is_available() { return runtime_.availability(); }

void AscendBackend::capabilities(omnirt_capabilities& caps) {
  caps.dl_device_type = kDLExtDev;
  caps.vendor = "huawei-ascend";
  // Before the first real call the library is not loaded (PLUGIN_RULES 4):
  // report what a complete CANN provides, and no devices yet.
  const AclRuntime* loaded = runtime_.loaded();
  caps.device_count = loaded != nullptr ? loaded->device_count() : 0;
  caps.features = kMappedFeatures;
  if (loaded != nullptr) caps.features &= ~loaded->lost_features();
  // The default stream's handle is only usable through the stream calls.
  if ((caps.features & OMNIRT_FEATURE_STREAMS) == 0) caps.features &= ~OMNIRT_FEATURE_DEFAULT_STREAM;
  if (hccl_.present()) caps.features |= OMNIRT_FEATURE_COLLECTIVES;  // found, not loaded
}

AclRuntime& AscendBackend::runtime_for(uint64_t feature, const char* call) {
  AclRuntime& rt = runtime();
  rt.symbols().require(feature, "ascend", call);
  return rt;
}

// The vendor objects and memory callers did not release (PLUGIN_RULES 10).
// Failures are logged and skipped: one bad handle must not leak the rest.
void AscendBackend::destroy_leftovers() noexcept {
  AclRuntime* rt = runtime_.loaded();
  if (rt == nullptr) return;
  const AclSymbols& acl = rt->api();
  auto release = [rt](int32_t device, const char* what, auto&& call) noexcept {
    try {
      auto scope = rt->on_device(device);
      if (call() == ACL_SUCCESS) return;
    } catch (...) {
    }
    plugin::log(OMNIRT_LOG_WARN, std::string("ascend: could not release a leftover ") + what);
  };
  for (const auto& comm : comms_.take_all()) {
    release(comm->device, "communicator", [&] { return hccl_.get().HcclCommDestroy(comm->handle) == HCCL_SUCCESS ? ACL_SUCCESS : 1; });
  }
  for (const auto& event : events_.take_all()) {
    release(event->device, "event", [&] { return acl.aclrtDestroyEvent(event->handle); });
  }
  for (const auto& stream : streams_.take_all()) {
    release(stream->device, "stream", [&] { return acl.aclrtDestroyStream(stream->handle); });
  }
  for (const auto& block : allocations_.take_all()) {
    void* ptr = reinterpret_cast<void*>(block.base);
    if (block.device == plugin_common::AllocationTracker::kHost) {
      release(0, "pinned block", [&] { return acl.aclrtFreeHost(ptr); });
    } else {
      release(block.device, "device block", [&] { return acl.aclrtFree(ptr); });
    }
  }
}

}  // namespace omnirt::ascend

OMNIRT_DEFINE_BACKEND(omnirt::ascend::AscendBackend, "ascend", OMNIRT_BACKEND_VERSION)
