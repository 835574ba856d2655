// A simulated AscendCL runtime: libascendcl.so exporting the entry points the
// ascend backend binds, with their documented signatures (declared from the
// backend's own OMNIRT_ACL_SYMBOLS list), codes and semantics: aclInit before
// use, a per-thread current context, destMax/maxCount bounds, a thread-local
// message for aclGetRecentErrMsg, no host-to-host async copy.
//
// Built twice: the current SDK, and with OMNIRT_SIM_OLD_SDK an older CANN
// without aclrtMemsetAsync.
#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include "acl_api.h"
#include "sim_core.h"
#include "sim_enqueue.h"

using namespace omnirt::ascend;  // NOLINT: the vendor's spellings, as a client sees them
using omnirt::sim::Machine;

#define SIM_DECLARE(name, ret, params) extern "C" OMNIRT_SIM_EXPORT ret name params;
#define SIM_DECLARE_OPTIONAL(features, name, ret, params) SIM_DECLARE(name, ret, params)
OMNIRT_ACL_SYMBOLS(SIM_DECLARE, SIM_DECLARE_OPTIONAL)

// What a test can ask: objects, device references and the initialization a
// client still holds (0 once it released everything).
extern "C" OMNIRT_SIM_EXPORT int omnirt_sim_outstanding();

namespace {

constexpr aclError kSuccess = 0;
constexpr aclError kInvalidParam = 100000;       // ACL_ERROR_INVALID_PARAM
constexpr aclError kUninitialize = 100001;       // ACL_ERROR_UNINITIALIZE
constexpr aclError kRepeatInitialize = 100002;   // ACL_ERROR_REPEAT_INITIALIZE
constexpr aclError kRepeatFinalize = 100037;     // ACL_ERROR_REPEAT_FINALIZE
constexpr aclError kInvalidDeviceId = 107001;    // ACL_ERROR_RT_INVALID_DEVICEID
constexpr aclError kContextNull = 107002;        // ACL_ERROR_RT_CONTEXT_NULL
constexpr aclError kInvalidHandle = 107017;      // ACL_ERROR_RT_INVALID_HANDLE
constexpr aclError kFeatureNotSupport = 207000;  // ACL_ERROR_RT_FEATURE_NOT_SUPPORT
constexpr aclError kMemoryAllocation = 207001;   // ACL_ERROR_RT_MEMORY_ALLOCATION
constexpr aclError kEventNotComplete = 507006;   // ACL_ERROR_RT_EVENT_NOT_COMPLETE
constexpr aclError kLostHeartbeat = 507010;      // ACL_ERROR_RT_LOST_HEARTBEAT
constexpr aclError kDriverFailure = 500004;      // ACL_ERROR_DRV_FAILURE

using omnirt::sim::kMaxDevices;
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kNormalGranule = 512;

std::atomic<bool> g_initialized{false};
std::array<std::atomic<int>, kMaxDevices> g_device_refs{};
// A device's default context is the address of its slot.
std::array<char, kMaxDevices> g_contexts{};
// [from * kMaxDevices + to]: aclrtDeviceEnablePeerAccess(to) ran on `from`.
std::array<std::atomic<bool>, kMaxDevices * kMaxDevices> g_peer_enabled{};

// Plain buffers: thread_local objects with destructors would keep this
// library from unloading at dlclose, and tests check that it does.
thread_local int t_device = -1;  // device of the current context, -1: none
thread_local char t_pending_error[256];
thread_local char t_returned_error[256];

aclError fail(aclError code, const std::string& message) {
  std::snprintf(t_pending_error, sizeof t_pending_error, "[simulated AscendCL] %s",
                message.c_str());
  return code;
}

Machine& machine() { return Machine::get(); }

// The device of the thread's current context, or -1 after recording why not.
int current_device() {
  if (t_device < 0) fail(kContextNull, "no current context: call aclrtSetDevice first");
  return t_device;
}

bool device_lost() { return !machine().work(); }

aclError lost() {
  return fail(kLostHeartbeat, "device lost (OMNIRT_SIM_DEVICE_LOST_AFTER): ts lost heartbeat");
}

// `count` bytes at `ptr` lie inside one device allocation.
bool device_range(const void* ptr, size_t count) {
  const auto block = machine().find(ptr);
  return block && reinterpret_cast<uintptr_t>(ptr) + count <= block->base + block->size;
}

aclError check_copy(void* dst, size_t destMax, const void* src, size_t count,
                    aclrtMemcpyKind kind) {
  if (dst == nullptr || src == nullptr) return fail(kInvalidParam, "dst or src is NULL");
  if (count > destMax) return fail(kInvalidParam, "count exceeds destMax");
  const bool to_device = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  const bool from_device = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
    return fail(kInvalidParam, "unknown aclrtMemcpyKind " + std::to_string(kind));
  }
  if (to_device && !device_range(dst, count)) {
    return fail(kInvalidParam, "dst is not device memory of this size");
  }
  if (from_device && !device_range(src, count)) {
    return fail(kInvalidParam, "src is not device memory of this size");
  }
  if (to_device && from_device) {
    const int a = machine().find(src)->device;
    const int b = machine().find(dst)->device;
    const int other = t_device == a ? b : a;
    if (a != b &&
        ((t_device != a && t_device != b) || !g_peer_enabled[t_device * kMaxDevices + other])) {
      return fail(kFeatureNotSupport, "copy between devices without peer access enabled");
    }
  }
  return kSuccess;
}

aclError check_set(void* devPtr, size_t maxCount, size_t count) {
  if (count > maxCount) return fail(kInvalidParam, "count exceeds maxCount");
  if (!device_range(devPtr, count))
    return fail(kInvalidParam, "devPtr is not device memory of this size");
  return kSuccess;
}

// The stream a handle names; nullptr (the default stream) or a live stream.
std::shared_ptr<omnirt::sim::Stream> stream_of(aclrtStream stream, int device) {
  return stream == nullptr ? machine().default_stream(device) : machine().stream(stream);
}

}  // namespace

// --- initialization and devices ----------------------------------------------

aclError aclInit(const char*) {
  if (omnirt::sim::read_config().fail_init) {
    return fail(kDriverFailure, "the NPU driver is not responding (OMNIRT_SIM_FAIL_INIT)");
  }
  if (g_initialized.exchange(true))
    return fail(kRepeatInitialize, "AscendCL is already initialized");
  return kSuccess;
}

aclError aclFinalize() {
  if (!g_initialized.exchange(false)) return fail(kRepeatFinalize, "AscendCL is not initialized");
  for (auto& enabled : g_peer_enabled) enabled = false;
  return kSuccess;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  if (count == nullptr) return fail(kInvalidParam, "count is NULL");
  if (!g_initialized) return fail(kUninitialize, "call aclInit first");
  machine().begin_session();
  *count = static_cast<uint32_t>(machine().device_count());
  return kSuccess;
}

aclError aclrtSetDevice(int32_t deviceId) {
  if (!g_initialized) return fail(kUninitialize, "call aclInit first");
  if (!machine().valid_device(deviceId)) return fail(kInvalidDeviceId, "no such device");
  ++g_device_refs[deviceId];
  t_device = deviceId;
  return kSuccess;
}

aclError aclrtResetDevice(int32_t deviceId) {
  if (!machine().valid_device(deviceId)) return fail(kInvalidDeviceId, "no such device");
  if (g_device_refs[deviceId] == 0) return fail(kInvalidParam, "device was not set");
  if (--g_device_refs[deviceId] == 0 && t_device == deviceId) t_device = -1;
  return kSuccess;
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  if (context == nullptr) return fail(kInvalidParam, "context is NULL");
  if (current_device() < 0) return kContextNull;
  *context = &g_contexts[t_device];
  return kSuccess;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  const auto slot = static_cast<char*>(context) - g_contexts.data();
  if (context == nullptr || slot < 0 || slot >= machine().device_count()) {
    return fail(kInvalidParam, "not a context");
  }
  if (g_device_refs[slot] == 0) return fail(kInvalidParam, "the context's device was reset");
  t_device = static_cast<int>(slot);
  return kSuccess;
}

aclError aclrtSynchronizeDevice() {
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  machine().synchronize(t_device);
  return kSuccess;
}

aclError aclrtDeviceCanAccessPeer(int32_t* canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
  if (canAccessPeer == nullptr || deviceId == peerDeviceId) {
    return fail(kInvalidParam, "canAccessPeer is NULL or the devices are the same");
  }
  if (!machine().valid_device(deviceId) || !machine().valid_device(peerDeviceId)) {
    return fail(kInvalidDeviceId, "no such device");
  }
  *canAccessPeer = machine().config().peer_access ? 1 : 0;
  return kSuccess;
}

// One way: from the current device to `peerDeviceId`.
aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags) {
  if (current_device() < 0) return kContextNull;
  if (flags != 0 || peerDeviceId == t_device || !machine().valid_device(peerDeviceId)) {
    return fail(kInvalidParam, "flags must be 0 and peerDeviceId another device");
  }
  if (!machine().config().peer_access)
    return fail(kFeatureNotSupport, "no peer access (OMNIRT_SIM_NO_PEER)");
  g_peer_enabled[t_device * kMaxDevices + peerDeviceId] = true;
  return kSuccess;
}

const char* aclrtGetSocName() { return "Ascend910B4-sim"; }

aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value) {
  if (!machine().valid_device(static_cast<int>(deviceId)))
    return fail(kInvalidDeviceId, "no such device");
  if (value == nullptr || deviceInfo != ACL_DEVICE_INFO_AI_CORE_NUM) {
    return fail(kInvalidParam, "unsupported aclDeviceInfo");
  }
  *value = 20;
  return kSuccess;
}

// Returns and clears the thread's message, which stays valid until the next call.
const char* aclGetRecentErrMsg() {
  if (t_pending_error[0] == '\0') return nullptr;
  std::memcpy(t_returned_error, t_pending_error, sizeof t_returned_error);
  t_pending_error[0] = '\0';
  return t_returned_error;
}

// --- memory -----------------------------------------------------------------

// Huge pages come in 2 MiB; HUGE_FIRST takes them for requests of 1 MiB or more.
aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  if (devPtr == nullptr || size == 0) return fail(kInvalidParam, "devPtr is NULL or size is 0");
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  size_t granule = kNormalGranule;
  switch (policy) {
    case ACL_MEM_MALLOC_HUGE_FIRST:
      if (size >= kHugePage / 2) granule = kHugePage;
      break;
    case ACL_MEM_MALLOC_HUGE_ONLY:
      granule = kHugePage;
      break;
    case ACL_MEM_MALLOC_NORMAL_ONLY:
      break;
    default:
      return fail(kInvalidParam, "unknown aclrtMemMallocPolicy " + std::to_string(policy));
  }
  if (!machine().allocate(t_device, size, granule, devPtr)) {
    return fail(kMemoryAllocation, "device " + std::to_string(t_device) + " is out of memory (" +
                                       std::to_string(size) + " bytes requested)");
  }
  return kSuccess;
}

aclError aclrtFree(void* devPtr) {
  if (device_lost()) return lost();
  const auto block = machine().find(devPtr);
  if (!block || block->base != reinterpret_cast<uintptr_t>(devPtr) ||
      !machine().release(block->device, devPtr)) {
    return fail(kInvalidParam, "devPtr is not an allocation");
  }
  return kSuccess;
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  if (hostPtr == nullptr || size == 0) return fail(kInvalidParam, "hostPtr is NULL or size is 0");
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  if (!machine().allocate_host(size, hostPtr)) return fail(kMemoryAllocation, "host out of memory");
  return kSuccess;
}

aclError aclrtFreeHost(void* hostPtr) {
  if (device_lost()) return lost();
  if (!machine().release(-1, hostPtr)) return fail(kInvalidParam, "hostPtr is not pinned memory");
  return kSuccess;
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  if (aclError rc = check_copy(dst, destMax, src, count, kind); rc != kSuccess) return rc;
  machine().default_stream(t_device)->synchronize();
  std::memmove(dst, src, count);
  return kSuccess;
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  if (aclError rc = check_set(devPtr, maxCount, count); rc != kSuccess) return rc;
  machine().default_stream(t_device)->synchronize();
  std::memset(devPtr, value, count);
  return kSuccess;
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  if (kind == ACL_MEMCPY_HOST_TO_HOST)
    return fail(kFeatureNotSupport, "no async host-to-host copy");
  if (aclError rc = check_copy(dst, destMax, src, count, kind); rc != kSuccess) return rc;
  auto queue = stream_of(stream, t_device);
  if (queue == nullptr) return fail(kInvalidHandle, "not a stream");
  queue->enqueue([=] { std::memmove(dst, src, count); });
  return kSuccess;
}

#ifndef OMNIRT_SIM_OLD_SDK
aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  if (aclError rc = check_set(devPtr, maxCount, count); rc != kSuccess) return rc;
  auto queue = stream_of(stream, t_device);
  if (queue == nullptr) return fail(kInvalidHandle, "not a stream");
  queue->enqueue([=] { std::memset(devPtr, value, count); });
  return kSuccess;
}
#endif

// The simulated parts have HBM only.
aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) return fail(kInvalidParam, "free or total is NULL");
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  if (attr == ACL_DDR_MEM) {
    *free = *total = 0;
    return kSuccess;
  }
  if (attr != ACL_HBM_MEM) return fail(kInvalidParam, "unsupported aclrtMemAttr");
  machine().mem_info(t_device, free, total);
  return kSuccess;
}

// --- streams and events ------------------------------------------------------

aclError aclrtCreateStream(aclrtStream* stream) {
  if (stream == nullptr) return fail(kInvalidParam, "stream is NULL");
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  *stream = machine().create_stream(t_device);
  return kSuccess;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  if (device_lost()) return lost();
  if (!machine().destroy_stream(stream)) return fail(kInvalidHandle, "not a stream");
  return kSuccess;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  auto queue = stream_of(stream, t_device);
  if (queue == nullptr) return fail(kInvalidHandle, "not a stream");
  queue->synchronize();
  return kSuccess;
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  if (status == nullptr) return fail(kInvalidParam, "status is NULL");
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  auto queue = stream_of(stream, t_device);
  if (queue == nullptr) return fail(kInvalidHandle, "not a stream");
  *status = queue->idle() ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
  return kSuccess;
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  auto queue = stream_of(stream, t_device);
  auto marker = machine().event(event);
  if (queue == nullptr || marker == nullptr) return fail(kInvalidHandle, "not a stream or event");
  marker->make_wait(*queue);
  return kSuccess;
}

aclError aclrtCreateEvent(aclrtEvent* event) {
  if (event == nullptr) return fail(kInvalidParam, "event is NULL");
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  *event = machine().create_event(t_device);
  return kSuccess;
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  if (device_lost()) return lost();
  if (!machine().destroy_event(event)) return fail(kInvalidHandle, "not an event");
  return kSuccess;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  if (current_device() < 0) return kContextNull;
  if (device_lost()) return lost();
  auto queue = stream_of(stream, t_device);
  auto marker = machine().event(event);
  if (queue == nullptr || marker == nullptr) return fail(kInvalidHandle, "not a stream or event");
  marker->record_on(*queue);
  return kSuccess;
}

// As documented: an event never recorded is NOT_READY.
aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  if (status == nullptr) return fail(kInvalidParam, "status is NULL");
  if (device_lost()) return lost();
  auto marker = machine().event(event);
  if (marker == nullptr) return fail(kInvalidHandle, "not an event");
  *status =
      marker->complete() ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
  return kSuccess;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  if (device_lost()) return lost();
  auto marker = machine().event(event);
  if (marker == nullptr) return fail(kInvalidHandle, "not an event");
  marker->wait();
  return kSuccess;
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  if (ms == nullptr) return fail(kInvalidParam, "ms is NULL");
  if (device_lost()) return lost();
  auto start = machine().event(startEvent);
  auto end = machine().event(endEvent);
  if (start == nullptr || end == nullptr) return fail(kInvalidHandle, "not an event");
  if (!start->recorded() || !end->recorded()) return fail(kInvalidParam, "event not recorded");
  const auto elapsed = omnirt::sim::Event::elapsed_ms(*start, *end);
  if (!elapsed) return fail(kEventNotComplete, "event not complete");
  *ms = static_cast<float>(*elapsed);
  return kSuccess;
}

int omnirt_sim_outstanding() {
  int refs = 0;
  for (const auto& count : g_device_refs) refs += count;
  return machine().live_objects() + refs + (g_initialized ? 1 : 0);
}

int omnirt_sim_current_device() { return t_device; }

int omnirt_sim_enqueue(int device, void* stream, void (*run)(void*), void* arg) {
  if (stream == nullptr && !machine().valid_device(device)) return -1;
  auto queue = stream_of(stream, device);
  if (queue == nullptr) return -1;
  queue->enqueue([run, arg] { run(arg); });
  return 0;
}
