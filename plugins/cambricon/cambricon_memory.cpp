// Memory of the cambricon backend: cnrtMalloc, pinned host memory, copies and
// sets. CNRT's copy direction enum is ordered differently from OmniRT's.
#include <string>

#include "cambricon_backend.h"
#include "cnrt_status.h"

namespace omnirt::cambricon {
namespace {

using plugin_common::AllocationTracker;

// `kind` was checked by the MemoryPlanner.
cnrtMemTransDir_t direction(int32_t kind) {
  switch (kind) {
    case OMNIRT_MEMCPY_HOST_TO_DEVICE:
      return cnrtMemcpyHostToDev;
    case OMNIRT_MEMCPY_DEVICE_TO_HOST:
      return cnrtMemcpyDevToHost;
    case OMNIRT_MEMCPY_DEVICE_TO_DEVICE:
      return cnrtMemcpyDevToDev;
    default:
      return cnrtMemcpyHostToHost;
  }
}

}  // namespace

void* CambriconBackend::malloc_device(int32_t device, size_t size) {
  CnrtRuntime& rt = runtime();
  auto scope = rt.on_device(device);
  if (size == 0) return nullptr;
  void* ptr = nullptr;
  rt.check(rt.api().cnrtMalloc(&ptr, size), "cnrtMalloc");
  allocations_.add(device, ptr, size);
  return ptr;
}

void CambriconBackend::free_device(int32_t device, void* ptr) {
  if (ptr == nullptr) return;
  CnrtRuntime& rt = runtime();
  auto scope = rt.on_device(device);
  const auto block = allocations_.take_for_free(device, ptr, "cambricon", "free_device");
  const cnrtRet_t rc = rt.api().cnrtFree(ptr);
  if (rc != cnrtSuccess) allocations_.restore(block);
  rt.check(rc, "cnrtFree");
}

void* CambriconBackend::malloc_host(size_t size) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_HOST_ALLOC, "malloc_host");
  if (size == 0) return nullptr;
  void* ptr = nullptr;
  rt.check(rt.api().cnrtHostMalloc(&ptr, size), "cnrtHostMalloc");
  allocations_.add(AllocationTracker::kHost, ptr, size);
  return ptr;
}

void CambriconBackend::free_host(void* ptr) {
  if (ptr == nullptr) return;
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_HOST_ALLOC, "free_host");
  const auto block =
      allocations_.take_for_free(AllocationTracker::kHost, ptr, "cambricon", "free_host");
  const cnrtRet_t rc = rt.api().cnrtFreeHost(ptr);
  if (rc != cnrtSuccess) allocations_.restore(block);
  rt.check(rc, "cnrtFreeHost");
}

// A copy between two devices is cnrtMemcpyPeer, run on the source device.
void CambriconBackend::memcpy_sync(void* dst, const void* src, size_t size, int32_t kind) {
  const auto plan = planner_.copy(dst, src, size, kind);
  if (size == 0) return;
  CnrtRuntime& rt = runtime();
  auto scope = rt.on_device(plan.device);
  if (plan.peer >= 0) {
    require_peer(rt, plan);
    rt.check(rt.api().cnrtMemcpyPeer(dst, plan.peer, const_cast<void*>(src), plan.device, size),
             "cnrtMemcpyPeer");
    return;
  }
  rt.check(rt.api().cnrtMemcpy(dst, const_cast<void*>(src), size, direction(kind)), "cnrtMemcpy");
}

void CambriconBackend::require_peer(const CnrtRuntime& rt, const plugin_common::MemoryPlan& plan) {
  rt.symbols().require(OMNIRT_FEATURE_PEER_COPY, "cambricon", "a copy between devices");
  rt.peers().require("cambricon", plan.device, plan.peer);
}

void CambriconBackend::memset_sync(void* ptr, int32_t value, size_t size) {
  const auto plan = planner_.set(ptr, size);
  if (size == 0) return;
  CnrtRuntime& rt = runtime();
  auto scope = rt.on_device(plan.device);
  rt.check(rt.api().cnrtMemset(ptr, value, size), "cnrtMemset");
}

void CambriconBackend::memcpy_async(void* dst, const void* src, size_t size, int32_t kind,
                                    omnirt_stream* stream) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_ASYNC_COPY, "memcpy_async");
  const auto plan = planner_.copy(dst, src, size, kind);
  const auto queue = find_queue(stream);
  if (size == 0) return;
  auto scope = rt.on_device(queue ? queue->device : plan.device);
  cnrtQueue_t handle = queue ? queue->handle : nullptr;
  if (plan.peer >= 0) {
    require_peer(rt, plan);
    rt.check(rt.api().cnrtMemcpyPeerAsync(dst, plan.peer, const_cast<void*>(src), plan.device, size,
                                          handle),
             "cnrtMemcpyPeerAsync");
    return;
  }
  rt.check(rt.api().cnrtMemcpyAsync_V2(dst, const_cast<void*>(src), size, handle, direction(kind)),
           "cnrtMemcpyAsync_V2");
}

void CambriconBackend::memset_async(void* ptr, int32_t value, size_t size, omnirt_stream* stream) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_ASYNC_COPY, "memset_async");
  const auto plan = planner_.set(ptr, size);
  const auto queue = find_queue(stream);
  if (size == 0) return;
  auto scope = rt.on_device(queue ? queue->device : plan.device);
  rt.check(rt.api().cnrtMemsetAsync(ptr, value, size, queue ? queue->handle : nullptr),
           "cnrtMemsetAsync");
}

void CambriconBackend::mem_get_info(int32_t device, size_t& free_bytes, size_t& total_bytes) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_MEM_INFO, "mem_get_info");
  auto scope = rt.on_device(device);
  rt.check(rt.api().cnrtMemGetInfo(&free_bytes, &total_bytes), "cnrtMemGetInfo");
}

void CambriconBackend::memory_stats(int32_t device, omnirt_memory_stats& stats) {
  runtime().check_device(device);
  allocations_.stats(device, stats);
}

void CambriconBackend::reset_memory_stats(int32_t device) {
  runtime().check_device(device);
  allocations_.reset(device);
}

}  // namespace omnirt::cambricon
