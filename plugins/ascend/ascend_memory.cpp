// Memory of the ascend backend: aclrtMalloc with the configured policy,
// pinned host memory, copies and sets with AscendCL's destMax/maxCount bounds.
#include <cstring>
#include <string>

#include "acl_status.h"
#include "ascend_backend.h"

namespace omnirt::ascend {
namespace {

using plugin_common::AllocationTracker;

// Waits for `stream` (the default stream when null).
void wait_for(const AclRuntime& rt, aclrtStream stream) {
  if (rt.api().aclrtSynchronizeStream != nullptr) {
    rt.check(rt.api().aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
  } else {
    rt.check(rt.api().aclrtSynchronizeDevice(), "aclrtSynchronizeDevice");
  }
}

}  // namespace

void* AscendBackend::malloc_device(int32_t device, size_t size) {
  AclRuntime& rt = runtime();
  auto scope = rt.on_device(device);
  if (size == 0) return nullptr;
  void* ptr = nullptr;
  rt.check(rt.api().aclrtMalloc(&ptr, size, malloc_policy_), "aclrtMalloc");
  allocations_.add(device, ptr, size);
  return ptr;
}

void AscendBackend::free_device(int32_t device, void* ptr) {
  if (ptr == nullptr) return;
  AclRuntime& rt = runtime();
  auto scope = rt.on_device(device);
  const auto block = allocations_.take_for_free(device, ptr, "ascend", "free_device");
  const aclError rc = rt.api().aclrtFree(ptr);
  if (rc != ACL_SUCCESS) allocations_.restore(block);
  rt.check(rc, "aclrtFree");
}

// Pinned memory belongs to no device, but AscendCL wants a current context.
void* AscendBackend::malloc_host(size_t size) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_HOST_ALLOC, "malloc_host");
  auto scope = rt.on_device(0);
  if (size == 0) return nullptr;
  void* ptr = nullptr;
  rt.check(rt.api().aclrtMallocHost(&ptr, size), "aclrtMallocHost");
  allocations_.add(AllocationTracker::kHost, ptr, size);
  return ptr;
}

void AscendBackend::free_host(void* ptr) {
  if (ptr == nullptr) return;
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_HOST_ALLOC, "free_host");
  auto scope = rt.on_device(0);
  const auto block =
      allocations_.take_for_free(AllocationTracker::kHost, ptr, "ascend", "free_host");
  const aclError rc = rt.api().aclrtFreeHost(ptr);
  if (rc != ACL_SUCCESS) allocations_.restore(block);
  rt.check(rc, "aclrtFreeHost");
}

// A copy between two devices runs on the source device with peer access enabled.
void AscendBackend::prepare_peer_copy(AclRuntime& rt, const plugin_common::MemoryPlan& plan) {
  if (plan.peer < 0) return;
  rt.symbols().require(OMNIRT_FEATURE_PEER_COPY, "ascend", "a copy between devices");
  rt.peers().require("ascend", plan.device, plan.peer);
  rt.enable_peer_access(plan.device, plan.peer);
}

void AscendBackend::memcpy_sync(void* dst, const void* src, size_t size, int32_t kind) {
  const auto plan = planner_.copy(dst, src, size, kind);
  if (size == 0) return;
  AclRuntime& rt = runtime();
  prepare_peer_copy(rt, plan);
  auto scope = rt.on_device(plan.device);
  rt.check(
      rt.api().aclrtMemcpy(dst, plan.dst_capacity, src, size, static_cast<aclrtMemcpyKind>(kind)),
      "aclrtMemcpy");
}

void AscendBackend::memset_sync(void* ptr, int32_t value, size_t size) {
  const auto plan = planner_.set(ptr, size);
  if (size == 0) return;
  AclRuntime& rt = runtime();
  auto scope = rt.on_device(plan.device);
  rt.check(rt.api().aclrtMemset(ptr, plan.dst_capacity, value, size), "aclrtMemset");
}

void AscendBackend::memcpy_async(void* dst, const void* src, size_t size, int32_t kind,
                                 omnirt_stream* stream) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_ASYNC_COPY, "memcpy_async");
  const auto plan = planner_.copy(dst, src, size, kind);
  const auto queue = find_stream(stream);
  if (size == 0) return;
  prepare_peer_copy(rt, plan);
  auto scope = rt.on_device(queue ? queue->device : plan.device);
  aclrtStream handle = queue ? queue->handle : nullptr;
  // aclrtMemcpyAsync refuses host-to-host; the ABI allows it. Waiting for the
  // stream first keeps the copy in stream order.
  if (kind == OMNIRT_MEMCPY_HOST_TO_HOST) {
    wait_for(rt, handle);
    std::memmove(dst, src, size);
    return;
  }
  rt.check(rt.api().aclrtMemcpyAsync(dst, plan.dst_capacity, src, size,
                                     static_cast<aclrtMemcpyKind>(kind), handle),
           "aclrtMemcpyAsync");
}

void AscendBackend::memset_async(void* ptr, int32_t value, size_t size, omnirt_stream* stream) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_ASYNC_COPY, "memset_async");
  const auto plan = planner_.set(ptr, size);
  const auto queue = find_stream(stream);
  if (size == 0) return;
  auto scope = rt.on_device(queue ? queue->device : plan.device);
  rt.check(rt.api().aclrtMemsetAsync(ptr, plan.dst_capacity, value, size,
                                     queue ? queue->handle : nullptr),
           "aclrtMemsetAsync");
}

// HBM on training and A2/A3 parts; the Atlas 300I family has DDR instead.
void AscendBackend::mem_get_info(int32_t device, size_t& free_bytes, size_t& total_bytes) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_MEM_INFO, "mem_get_info");
  auto scope = rt.on_device(device);
  rt.check(rt.api().aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes), "aclrtGetMemInfo");
  if (total_bytes == 0) {
    rt.check(rt.api().aclrtGetMemInfo(ACL_DDR_MEM, &free_bytes, &total_bytes), "aclrtGetMemInfo");
  }
}

void AscendBackend::memory_stats(int32_t device, omnirt_memory_stats& stats) {
  runtime().check_device(device);
  allocations_.stats(device, stats);
}

void AscendBackend::reset_memory_stats(int32_t device) {
  runtime().check_device(device);
  allocations_.reset(device);
}

}  // namespace omnirt::ascend
