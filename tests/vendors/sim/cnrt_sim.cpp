// A simulated CNRT runtime: libcnrt.so exporting the entry points the
// cambricon backend binds, with their documented signatures (declared from the
// backend's own OMNIRT_CNRT_SYMBOLS list), codes and semantics: a per-thread
// current device (0 until set), copy directions checked against where memory
// lives, "busy" answers for pending queues and notifiers, durations in
// microseconds.
//
// Built twice: the current SDK, and with OMNIRT_SIM_OLD_SDK an older CNRT
// without cnrtMemcpyAsync_V2.
#include <cstring>
#include <memory>
#include <string>

#include "cnrt_api.h"
#include "sim_core.h"
#include "sim_enqueue.h"

using namespace omnirt::cambricon;  // NOLINT: the vendor's spellings, as a client sees them
using omnirt::sim::Machine;

#define SIM_DECLARE(name, ret, params) extern "C" OMNIRT_SIM_EXPORT ret name params;
#define SIM_DECLARE_OPTIONAL(features, name, ret, params) SIM_DECLARE(name, ret, params)
OMNIRT_CNRT_SYMBOLS(SIM_DECLARE, SIM_DECLARE_OPTIONAL)

// What a test can ask: objects a client still holds (0 once it released all).
extern "C" OMNIRT_SIM_EXPORT int omnirt_sim_outstanding();

namespace {

constexpr cnrtRet_t kSuccess = 0;
constexpr cnrtRet_t kErrorInit = 100002;
constexpr cnrtRet_t kErrorDeviceInvalid = 100005;
constexpr cnrtRet_t kErrorArgsInvalid = 100006;
constexpr cnrtRet_t kErrorInvalidResourceHandle = 100014;
constexpr cnrtRet_t kErrorNotSupport = 100050;
constexpr cnrtRet_t kErrorNoMem = 100100;
constexpr cnrtRet_t kErrorKernelTrap = 100132;
constexpr cnrtRet_t kErrorMemcpyDirectionInvalid = 632013;
constexpr cnrtRet_t kErrorBusy = 632014;

constexpr size_t kGranule = 512;

thread_local int t_device = 0;

Machine& machine() { return Machine::get(); }

// A device fault is sticky: every later device call reports it.
bool device_lost() { return !machine().work(); }

bool device_range(const void* ptr, size_t bytes) {
  const auto block = machine().find(ptr);
  return block && reinterpret_cast<uintptr_t>(ptr) + bytes <= block->base + block->size;
}

cnrtRet_t check_copy(void* dst, void* src, size_t bytes, cnrtMemTransDir_t dir) {
  if (dst == nullptr || src == nullptr) return kErrorArgsInvalid;
  if (dir < cnrtMemcpyHostToDev || dir > cnrtMemcpyHostToHost) return kErrorMemcpyDirectionInvalid;
  const bool to_device = dir == cnrtMemcpyHostToDev || dir == cnrtMemcpyDevToDev;
  const bool from_device = dir == cnrtMemcpyDevToHost || dir == cnrtMemcpyDevToDev;
  if ((to_device && !device_range(dst, bytes)) || (from_device && !device_range(src, bytes))) {
    return kErrorArgsInvalid;
  }
  // cnrtMemcpyDevToDev is a copy within one device.
  if (to_device && from_device && machine().find(dst)->device != machine().find(src)->device) {
    return kErrorArgsInvalid;
  }
  return kSuccess;
}

// `bytes` at `dst` on `dstDev` and at `src` on `srcDev`, devices that reach each other.
cnrtRet_t check_peer_copy(void* dst, int dstDev, void* src, int srcDev, size_t bytes) {
  if (!machine().valid_device(dstDev) || !machine().valid_device(srcDev))
    return kErrorDeviceInvalid;
  if (!machine().config().peer_access) return kErrorNotSupport;
  if (!device_range(dst, bytes) || machine().find(dst)->device != dstDev ||
      !device_range(src, bytes) || machine().find(src)->device != srcDev) {
    return kErrorArgsInvalid;
  }
  return kSuccess;
}

std::shared_ptr<omnirt::sim::Stream> queue_of(cnrtQueue_t queue) {
  return queue == nullptr ? machine().default_stream(t_device) : machine().stream(queue);
}

}  // namespace

// --- devices -----------------------------------------------------------------

cnrtRet_t cnrtGetDeviceCount(unsigned int* pCount) {
  if (pCount == nullptr) return kErrorArgsInvalid;
  machine().begin_session();
  if (machine().config().fail_init) return kErrorInit;
  *pCount = static_cast<unsigned int>(machine().device_count());
  return kSuccess;
}

cnrtRet_t cnrtGetDevice(int* pOrdinal) {
  if (pOrdinal == nullptr) return kErrorArgsInvalid;
  *pOrdinal = t_device;
  return kSuccess;
}

cnrtRet_t cnrtSetDevice(int ordinal) {
  if (!machine().valid_device(ordinal)) return kErrorDeviceInvalid;
  t_device = ordinal;
  return kSuccess;
}

cnrtRet_t cnrtSyncDevice() {
  if (device_lost()) return kErrorKernelTrap;
  machine().synchronize(t_device);
  return kSuccess;
}

cnrtRet_t cnrtGetDeviceProperties(cnrtDeviceProp_t* prop, int device) {
  if (prop == nullptr) return kErrorArgsInvalid;
  if (!machine().valid_device(device)) return kErrorDeviceInvalid;
  std::strcpy(prop->name, "MLU370-S4-sim");
  return kSuccess;
}

cnrtRet_t cnrtDeviceGetAttribute(int* pValue, cnrtDeviceAttr_t attr, int device) {
  if (pValue == nullptr) return kErrorArgsInvalid;
  if (!machine().valid_device(device)) return kErrorDeviceInvalid;
  switch (attr) {
    case cnrtAttrClusterCount:
      *pValue = 6;
      return kSuccess;
    case cnrtAttrMcorePerCluster:
      *pValue = 4;
      return kSuccess;
    case cnrtAttrISAVersion:
      *pValue = 372;
      return kSuccess;
    case cnrtAttrTotalMemSize:
      *pValue = static_cast<int>(machine().config().memory_bytes >> 20);
      return kSuccess;
  }
  return kErrorArgsInvalid;
}

const char* cnrtGetErrorStr(cnrtRet_t err_code) {
  switch (err_code) {
    case kSuccess:
      return "success";
    case kErrorInit:
      return "[simulated CNRT] initialization failed (OMNIRT_SIM_FAIL_INIT)";
    case kErrorDeviceInvalid:
      return "[simulated CNRT] invalid device ordinal";
    case kErrorArgsInvalid:
      return "[simulated CNRT] invalid argument";
    case kErrorInvalidResourceHandle:
      return "[simulated CNRT] invalid resource handle";
    case kErrorNoMem:
      return "[simulated CNRT] out of MLU memory";
    case kErrorNotSupport:
      return "[simulated CNRT] not supported (OMNIRT_SIM_NO_PEER)";
    case kErrorKernelTrap:
      return "[simulated CNRT] the device hit a trap; its state is undefined "
             "(OMNIRT_SIM_DEVICE_LOST_AFTER)";
    case kErrorMemcpyDirectionInvalid:
      return "[simulated CNRT] invalid copy direction";
    case kErrorBusy:
      return "[simulated CNRT] busy";
  }
  return "[simulated CNRT] unknown error";
}

// --- memory ------------------------------------------------------------------

cnrtRet_t cnrtMalloc(void** pPtr, size_t bytes) {
  if (pPtr == nullptr || bytes == 0) return kErrorArgsInvalid;
  if (device_lost()) return kErrorKernelTrap;
  return machine().allocate(t_device, bytes, kGranule, pPtr) ? kSuccess : kErrorNoMem;
}

cnrtRet_t cnrtFree(void* ptr) {
  if (device_lost()) return kErrorKernelTrap;
  const auto block = machine().find(ptr);
  if (!block || block->base != reinterpret_cast<uintptr_t>(ptr)) return kErrorArgsInvalid;
  return machine().release(block->device, ptr) ? kSuccess : kErrorArgsInvalid;
}

cnrtRet_t cnrtHostMalloc(void** pPtr, size_t bytes) {
  if (pPtr == nullptr || bytes == 0) return kErrorArgsInvalid;
  if (device_lost()) return kErrorKernelTrap;
  return machine().allocate_host(bytes, pPtr) ? kSuccess : kErrorNoMem;
}

cnrtRet_t cnrtFreeHost(void* ptr) {
  if (device_lost()) return kErrorKernelTrap;
  return machine().release(-1, ptr) ? kSuccess : kErrorArgsInvalid;
}

cnrtRet_t cnrtMemcpy(void* dst, void* src, size_t bytes, cnrtMemTransDir_t dir) {
  if (device_lost()) return kErrorKernelTrap;
  if (cnrtRet_t rc = check_copy(dst, src, bytes, dir); rc != kSuccess) return rc;
  machine().default_stream(t_device)->synchronize();
  std::memmove(dst, src, bytes);
  return kSuccess;
}

cnrtRet_t cnrtMemset(void* ptr, int value, size_t bytes) {
  if (device_lost()) return kErrorKernelTrap;
  if (!device_range(ptr, bytes)) return kErrorArgsInvalid;
  machine().default_stream(t_device)->synchronize();
  std::memset(ptr, value, bytes);
  return kSuccess;
}

#ifndef OMNIRT_SIM_OLD_SDK
cnrtRet_t cnrtMemcpyAsync_V2(void* dst, void* src, size_t bytes, cnrtQueue_t queue,
                             cnrtMemTransDir_t dir) {
  if (device_lost()) return kErrorKernelTrap;
  if (cnrtRet_t rc = check_copy(dst, src, bytes, dir); rc != kSuccess) return rc;
  auto stream = queue_of(queue);
  if (stream == nullptr) return kErrorInvalidResourceHandle;
  stream->enqueue([=] { std::memmove(dst, src, bytes); });
  return kSuccess;
}
#endif

cnrtRet_t cnrtMemsetAsync(void* ptr, int value, size_t bytes, cnrtQueue_t queue) {
  if (device_lost()) return kErrorKernelTrap;
  if (!device_range(ptr, bytes)) return kErrorArgsInvalid;
  auto stream = queue_of(queue);
  if (stream == nullptr) return kErrorInvalidResourceHandle;
  stream->enqueue([=] { std::memset(ptr, value, bytes); });
  return kSuccess;
}

cnrtRet_t cnrtGetPeerAccessibility(unsigned int* canAccess, int ordinal, int peerOrdinal) {
  if (canAccess == nullptr || ordinal == peerOrdinal) return kErrorArgsInvalid;
  if (!machine().valid_device(ordinal) || !machine().valid_device(peerOrdinal)) {
    return kErrorDeviceInvalid;
  }
  *canAccess = machine().config().peer_access ? 1 : 0;
  return kSuccess;
}

cnrtRet_t cnrtMemcpyPeer(void* dst, int dstDev, void* src, int srcDev, size_t bytes) {
  if (device_lost()) return kErrorKernelTrap;
  if (cnrtRet_t rc = check_peer_copy(dst, dstDev, src, srcDev, bytes); rc != kSuccess) return rc;
  machine().default_stream(srcDev)->synchronize();
  machine().default_stream(dstDev)->synchronize();
  std::memmove(dst, src, bytes);
  return kSuccess;
}

cnrtRet_t cnrtMemcpyPeerAsync(void* dst, int dstDev, void* src, int srcDev, size_t bytes,
                              cnrtQueue_t queue) {
  if (device_lost()) return kErrorKernelTrap;
  if (cnrtRet_t rc = check_peer_copy(dst, dstDev, src, srcDev, bytes); rc != kSuccess) return rc;
  auto stream = queue_of(queue);
  if (stream == nullptr) return kErrorInvalidResourceHandle;
  stream->enqueue([=] { std::memmove(dst, src, bytes); });
  return kSuccess;
}

cnrtRet_t cnrtMemGetInfo(size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) return kErrorArgsInvalid;
  if (device_lost()) return kErrorKernelTrap;
  machine().mem_info(t_device, free, total);
  return kSuccess;
}

// --- queues and notifiers ----------------------------------------------------

cnrtRet_t cnrtQueueCreate(cnrtQueue_t* pQueue) {
  if (pQueue == nullptr) return kErrorArgsInvalid;
  if (device_lost()) return kErrorKernelTrap;
  *pQueue = reinterpret_cast<cnrtQueue_t>(machine().create_stream(t_device));
  return kSuccess;
}

cnrtRet_t cnrtQueueDestroy(cnrtQueue_t queue) {
  if (device_lost()) return kErrorKernelTrap;
  return machine().destroy_stream(queue) ? kSuccess : kErrorInvalidResourceHandle;
}

cnrtRet_t cnrtQueueSync(cnrtQueue_t queue) {
  if (device_lost()) return kErrorKernelTrap;
  auto stream = queue_of(queue);
  if (stream == nullptr) return kErrorInvalidResourceHandle;
  stream->synchronize();
  return kSuccess;
}

cnrtRet_t cnrtQueueQuery(cnrtQueue_t queue) {
  if (device_lost()) return kErrorKernelTrap;
  auto stream = queue_of(queue);
  if (stream == nullptr) return kErrorInvalidResourceHandle;
  return stream->idle() ? kSuccess : kErrorBusy;
}

cnrtRet_t cnrtQueueWaitNotifier(cnrtNotifier_t notifier, cnrtQueue_t queue, unsigned int flag) {
  if (flag != 0) return kErrorArgsInvalid;
  if (device_lost()) return kErrorKernelTrap;
  auto stream = queue_of(queue);
  auto event = machine().event(notifier);
  if (stream == nullptr || event == nullptr) return kErrorInvalidResourceHandle;
  event->make_wait(*stream);
  return kSuccess;
}

cnrtRet_t cnrtNotifierCreate(cnrtNotifier_t* pNotifier) {
  if (pNotifier == nullptr) return kErrorArgsInvalid;
  if (device_lost()) return kErrorKernelTrap;
  *pNotifier = reinterpret_cast<cnrtNotifier_t>(machine().create_event(t_device));
  return kSuccess;
}

cnrtRet_t cnrtNotifierDestroy(cnrtNotifier_t notifier) {
  if (device_lost()) return kErrorKernelTrap;
  return machine().destroy_event(notifier) ? kSuccess : kErrorInvalidResourceHandle;
}

cnrtRet_t cnrtPlaceNotifier(cnrtNotifier_t notifier, cnrtQueue_t queue) {
  if (device_lost()) return kErrorKernelTrap;
  auto stream = queue_of(queue);
  auto event = machine().event(notifier);
  if (stream == nullptr || event == nullptr) return kErrorInvalidResourceHandle;
  event->record_on(*stream);
  return kSuccess;
}

// Documented: success once placed work completed, busy before; a notifier
// never placed has nothing pending.
cnrtRet_t cnrtQueryNotifier(cnrtNotifier_t notifier) {
  if (device_lost()) return kErrorKernelTrap;
  auto event = machine().event(notifier);
  if (event == nullptr) return kErrorInvalidResourceHandle;
  return !event->recorded() || event->complete() ? kSuccess : kErrorBusy;
}

cnrtRet_t cnrtWaitNotifier(cnrtNotifier_t notifier) {
  if (device_lost()) return kErrorKernelTrap;
  auto event = machine().event(notifier);
  if (event == nullptr) return kErrorInvalidResourceHandle;
  event->wait();
  return kSuccess;
}

cnrtRet_t cnrtNotifierDuration(cnrtNotifier_t start, cnrtNotifier_t end, float* us) {
  if (us == nullptr) return kErrorArgsInvalid;
  if (device_lost()) return kErrorKernelTrap;
  auto first = machine().event(start);
  auto last = machine().event(end);
  if (first == nullptr || last == nullptr) return kErrorInvalidResourceHandle;
  if (!first->recorded() || !last->recorded()) return kErrorArgsInvalid;
  const auto elapsed = omnirt::sim::Event::elapsed_ms(*first, *last);
  if (!elapsed) return kErrorBusy;
  *us = static_cast<float>(*elapsed * 1000.0);
  return kSuccess;
}

int omnirt_sim_outstanding() { return machine().live_objects(); }

int omnirt_sim_current_device() { return t_device; }

int omnirt_sim_enqueue(int device, void* stream, void (*run)(void*), void* arg) {
  if (stream == nullptr && !machine().valid_device(device)) return -1;
  auto queue = stream == nullptr ? machine().default_stream(device) : machine().stream(stream);
  if (queue == nullptr) return -1;
  queue->enqueue([run, arg] { run(arg); });
  return 0;
}
