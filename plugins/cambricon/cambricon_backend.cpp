// Entry point, options and discovery of the cambricon backend.
#include "cambricon_backend.h"

#include <dlpack/dlpack.h>

#include <string>
#include <utility>

#include "cnrt_status.h"

namespace omnirt::cambricon {
namespace {

// What this backend maps when libcnrt.so has every symbol it binds. Never set:
// STREAM_ORDERED_ALLOC (CNRT has no queue-ordered allocator), GRAPH_CAPTURE
// (not bound yet), MODULES, COMPILE and NAMED_OPS (no engine in this plugin).
constexpr uint64_t kMappedFeatures =
    OMNIRT_FEATURE_HOST_ALLOC | OMNIRT_FEATURE_ASYNC_COPY | OMNIRT_FEATURE_STREAMS |
    OMNIRT_FEATURE_EVENTS | OMNIRT_FEATURE_EVENT_TIMING | OMNIRT_FEATURE_STREAM_WAIT_EVENT |
    OMNIRT_FEATURE_MEM_INFO | OMNIRT_FEATURE_MEMORY_STATS | OMNIRT_FEATURE_PEER_COPY |
    OMNIRT_FEATURE_DEFAULT_STREAM;

// Where libcnrt.so is looked for: README.md, "Finding CNRT".
plugin_common::LibraryLocator cnrt_locator(const plugin::Options& options) {
  return plugin_common::LibraryLocator({"libcnrt.so",
                                        options.get("library"),
                                        {{"NEUWARE_HOME", "lib64"}},
                                        {"/usr/local/neuware/lib64"}});
}

std::unique_ptr<CnrtRuntime> load_cnrt(plugin_common::DynamicLibrary library) {
  return std::make_unique<CnrtRuntime>(std::move(library));
}

}  // namespace

CambriconBackend::CambriconBackend(const omnirt_backend_create_args& args)
    : runtime_("cambricon", cnrt_locator(plugin::Options(args)), load_cnrt),
      cncl_(plugin::Options(args).get("cncl_library")) {
  plugin::Options(args).check_keys("cambricon", {"library", "cncl_library"});
}

CambriconBackend::~CambriconBackend() { destroy_leftovers(); }

plugin::Availability CambriconBackend::is_available() { return runtime_.availability(); }

void CambriconBackend::capabilities(omnirt_capabilities& caps) {
  caps.dl_device_type = kDLExtDev;
  caps.vendor = "cambricon";
  // Before the first real call the library is not loaded (PLUGIN_RULES 4):
  // report what a complete CNRT provides, and no devices yet.
  const CnrtRuntime* loaded = runtime_.loaded();
  caps.device_count = loaded != nullptr ? loaded->device_count() : 0;
  caps.features = kMappedFeatures;
  if (loaded != nullptr) caps.features &= ~loaded->lost_features();
  // The default queue's handle is only usable through the stream calls.
  if ((caps.features & OMNIRT_FEATURE_STREAMS) == 0) caps.features &= ~OMNIRT_FEATURE_DEFAULT_STREAM;
  if (cncl_.present()) caps.features |= OMNIRT_FEATURE_COLLECTIVES;  // found, not loaded
}

CnrtRuntime& CambriconBackend::runtime_for(uint64_t feature, const char* call) {
  CnrtRuntime& rt = runtime();
  rt.symbols().require(feature, "cambricon", call);
  return rt;
}

// The vendor objects and memory callers did not release (PLUGIN_RULES 10).
// Failures are logged and skipped: one bad handle must not leak the rest.
void CambriconBackend::destroy_leftovers() noexcept {
  CnrtRuntime* rt = runtime_.loaded();
  if (rt == nullptr) return;
  const CnrtSymbols& cnrt = rt->api();
  auto release = [rt](int32_t device, const char* what, auto&& call) noexcept {
    try {
      auto scope = rt->on_device(device);
      if (call() == cnrtSuccess) return;
    } catch (...) {
    }
    plugin::log(OMNIRT_LOG_WARN, std::string("cambricon: could not release a leftover ") + what);
  };
  for (const auto& comm : comms_.take_all()) {
    release(comm->device, "communicator",
            [&] { return cncl_.get().cnclFreeComm(comm->handle) == CNCL_RET_SUCCESS ? cnrtSuccess : -1; });
  }
  for (const auto& notifier : notifiers_.take_all()) {
    release(notifier->device, "event", [&] { return cnrt.cnrtNotifierDestroy(notifier->handle); });
  }
  for (const auto& queue : queues_.take_all()) {
    release(queue->device, "stream", [&] { return cnrt.cnrtQueueDestroy(queue->handle); });
  }
  for (const auto& block : allocations_.take_all()) {
    void* ptr = reinterpret_cast<void*>(block.base);
    if (block.device == plugin_common::AllocationTracker::kHost) {
      release(0, "pinned block", [&] { return cnrt.cnrtFreeHost(ptr); });
    } else {
      release(block.device, "device block", [&] { return cnrt.cnrtFree(ptr); });
    }
  }
}

}  // namespace omnirt::cambricon

OMNIRT_DEFINE_BACKEND(omnirt::cambricon::CambriconBackend, "cambricon", OMNIRT_BACKEND_VERSION)
