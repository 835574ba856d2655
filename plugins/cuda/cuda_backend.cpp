#include "cuda_backend.h"

#include "cuda_device.h"
#include "cuda_status.h"
#include "cuda_stream.h"

namespace omnirt::cuda {
namespace {

using plugin::fail;

std::string allocator_option(const omnirt_backend_create_args& args) {
  plugin::Options(args).check_keys("cuda", {"allocator", "nccl_library"});
  std::string kind = plugin::Options(args).get("allocator", "caching");
  if (kind != "caching" && kind != "async" && kind != "plain") {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT,
         "cuda: option allocator: '" + kind + "' is not one of caching, async, plain");
  }
  return kind;
}

void check_kind(int32_t kind) {
  if (kind < OMNIRT_MEMCPY_HOST_TO_HOST || kind > OMNIRT_MEMCPY_DEVICE_TO_DEVICE) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT,
         "kind: " + std::to_string(kind) + " is not an omnirt_memcpy_kind");
  }
}

// The pointer whose device a copy runs on: the device side of the copy.
const void* device_side(void* dst, const void* src, int32_t kind) {
  return kind == OMNIRT_MEMCPY_DEVICE_TO_HOST ? src : dst;
}

}  // namespace

CudaBackend::CudaBackend(const omnirt_backend_create_args& args)
    : allocator_kind_(allocator_option(args)),
      collectives_(plugin::Options(args).get("nccl_library")) {}

// Allocators return their memory on their own device, except those the
// engine's modules still use (detach_engine_memory).
CudaBackend::~CudaBackend() { detach_engine_memory(); }

plugin::Availability CudaBackend::is_available() { return runtime_.availability(); }

void CudaBackend::capabilities(omnirt_capabilities& caps) {
  caps.dl_device_type = kDLCUDA;
  caps.device_count = runtime_.known_device_count();  // no loading here (rule 4)
  caps.features =
      OMNIRT_FEATURE_HOST_ALLOC | OMNIRT_FEATURE_ASYNC_COPY | OMNIRT_FEATURE_STREAM_ORDERED_ALLOC |
      OMNIRT_FEATURE_STREAMS | OMNIRT_FEATURE_EVENTS | OMNIRT_FEATURE_EVENT_TIMING |
      OMNIRT_FEATURE_STREAM_WAIT_EVENT | OMNIRT_FEATURE_MEM_INFO | OMNIRT_FEATURE_MEMORY_STATS |
      OMNIRT_FEATURE_GRAPH_CAPTURE | OMNIRT_FEATURE_NAMED_OPS | OMNIRT_FEATURE_PEER_COPY |
      OMNIRT_FEATURE_DEFAULT_STREAM;
  if (engine_.present()) {
    caps.features |= OMNIRT_FEATURE_MODULES | OMNIRT_FEATURE_COMPILE | OMNIRT_FEATURE_OUTPUT_NAMES |
                     OMNIRT_FEATURE_ENGINE_PREPARE;
  }
  if (collectives_.present()) caps.features |= OMNIRT_FEATURE_COLLECTIVES;  // found, not loaded
  caps.dtypes =
      (1ull << OMNIRT_DTYPE_F32) | (1ull << OMNIRT_DTYPE_F16) | (1ull << OMNIRT_DTYPE_BF16);
  caps.vendor = "nvidia";
  engine_.describe(caps);
}

int32_t CudaBackend::device_count() { return runtime_.device_count(); }

void CudaBackend::reject_device(int32_t device, int count) {
  if (count == 0) cuda();  // throws the reason CUDA cannot run here
  fail(OMNIRT_STATUS_OUT_OF_RANGE,
       "device: " + std::to_string(device) + " is not in [0, " + std::to_string(count) + ")");
}

void CudaBackend::device_info(int32_t device, omnirt_device_info& info) {
  describe_device(cuda(), checked_device(device), info);
}

DeviceAllocator& CudaBackend::make_allocator_for(int32_t device) {
  const int checked = checked_device(device);
  allocators_sized_([this] {
    const int count = runtime_.device_count();
    allocator_made_ = std::make_unique<plugin_common::Once[]>(size_t(count));
    allocators_.resize(size_t(count));
    allocators_ready_ = std::make_unique<std::atomic<DeviceAllocator*>[]>(size_t(count));
    allocators_ready_count_.store(count, std::memory_order_release);
  });
  std::unique_ptr<DeviceAllocator>& made = allocators_[size_t(checked)];
  allocator_made_[size_t(checked)]([&] {
    made = make_allocator(allocator_kind_, cuda(), checked);
    allocators_ready_[size_t(checked)].store(made.get(), std::memory_order_release);
  });
  return *made;
}

int CudaBackend::device_for(const void* ptr) {
  if (runtime_.device_count() == 1) return 0;  // skips a pointer query per call
  return or_current(device_of_pointer(cuda(), ptr));
}

int CudaBackend::or_current(int device) {
  if (device >= 0) return device;
  int current = 0;
  OMNIRT_CUDA_CALL(cuda(), cudaGetDevice, &current);
  return current;
}

CudaBackend::CopyRoute CudaBackend::route_copy(void* dst, const void* src, int32_t kind) {
  if (kind != OMNIRT_MEMCPY_DEVICE_TO_DEVICE || runtime_.device_count() == 1) {
    return {device_for(device_side(dst, src, kind))};
  }
  // Each side's device asked once: they decide both the peer case and the device.
  const int src_device = device_of_pointer(cuda(), src);
  const int dst_device = device_of_pointer(cuda(), dst);
  if (src_device >= 0 && dst_device >= 0 && src_device != dst_device) {
    return {src_device, src_device, dst_device};
  }
  return {or_current(dst_device)};  // the destination's device, as device_side says
}

void* CudaBackend::malloc_device(int32_t device, size_t size) {
  return allocator(device).allocate(size, nullptr);
}

void CudaBackend::free_device(int32_t device, void* ptr) {
  if (ptr != nullptr) allocator(device).free(ptr, nullptr);
}

void* CudaBackend::malloc_host(size_t size) {
  if (size == 0) return nullptr;
  void* ptr = nullptr;
  const cudaError_t status = cuda().cudaHostAlloc(&ptr, size, cudaHostAllocPortable);
  if (status == cudaErrorMemoryAllocation) {
    cuda().cudaGetLastError();
    fail(OMNIRT_STATUS_OUT_OF_MEMORY,
         "cuda: cannot pin " + std::to_string(size) + " bytes of host memory", int64_t(status));
  }
  check(cuda(), status, "cudaHostAlloc");
  return ptr;
}

void CudaBackend::free_host(void* ptr) {
  if (ptr != nullptr) OMNIRT_CUDA_CALL(cuda(), cudaFreeHost, ptr);
}

void* CudaBackend::malloc_async(size_t size, omnirt_stream* stream) {
  if (stream == nullptr) fail(OMNIRT_STATUS_INVALID_ARGUMENT, "stream: NULL");
  const Stream& s = *stream_of(stream);
  return allocator(s.device).allocate(size, s.handle);
}

void CudaBackend::free_async(void* ptr, omnirt_stream* stream) {
  if (stream == nullptr) fail(OMNIRT_STATUS_INVALID_ARGUMENT, "stream: NULL");
  if (ptr == nullptr) return;
  const Stream& s = *stream_of(stream);
  allocator(s.device).free(ptr, s.handle);
}

// cudaMemcpy returns before a device-to-device copy (and may before the last
// DMA of a host-to-device one) is done, and cudaMemset before the memory is
// set: the default stream is synchronized so that "sync" means complete,
// also for work on the (non-blocking) streams of this backend.
void CudaBackend::memcpy_sync(void* dst, const void* src, size_t size, int32_t kind) {
  check_kind(kind);
  if (size == 0) return;
  const CopyRoute route = route_copy(dst, src, kind);
  DeviceGuard guard(cuda(), route.device);
  if (route.peer()) {
    // Between two GPUs: a peer copy works without peer access and for
    // stream-ordered pool memory, which plain copies need access rights for.
    OMNIRT_CUDA_CALL(cuda(), cudaMemcpyPeer, dst, route.peer_dst, src, route.peer_src, size);
  } else {
    OMNIRT_CUDA_CALL(cuda(), cudaMemcpy, dst, src, size, cudaMemcpyKind(kind));
  }
  if (kind == OMNIRT_MEMCPY_HOST_TO_DEVICE || kind == OMNIRT_MEMCPY_DEVICE_TO_DEVICE) {
    OMNIRT_CUDA_CALL(cuda(), cudaStreamSynchronize, nullptr);
  }
}

void CudaBackend::memset_sync(void* ptr, int32_t value, size_t size) {
  if (size == 0) return;
  DeviceGuard guard(cuda(), device_for(ptr));
  OMNIRT_CUDA_CALL(cuda(), cudaMemset, ptr, value, size);
  OMNIRT_CUDA_CALL(cuda(), cudaStreamSynchronize, nullptr);
}

void CudaBackend::memcpy_async(void* dst, const void* src, size_t size, int32_t kind,
                               omnirt_stream* stream) {
  check_kind(kind);
  if (size == 0) return;
  // With a stream, only a device-to-device copy needs its route (peer or not).
  const bool routed = stream == nullptr || kind == OMNIRT_MEMCPY_DEVICE_TO_DEVICE;
  const CopyRoute route = routed ? route_copy(dst, src, kind) : CopyRoute{};
  DeviceGuard guard(cuda(), stream != nullptr ? stream_of(stream)->device : route.device);
  if (route.peer()) {
    OMNIRT_CUDA_CALL(cuda(), cudaMemcpyPeerAsync, dst, route.peer_dst, src, route.peer_src, size,
                     cuda_stream(stream));
  } else {
    OMNIRT_CUDA_CALL(cuda(), cudaMemcpyAsync, dst, src, size, cudaMemcpyKind(kind),
                     cuda_stream(stream));
  }
}

void CudaBackend::memset_async(void* ptr, int32_t value, size_t size, omnirt_stream* stream) {
  if (size == 0) return;
  const int device = stream != nullptr ? stream_of(stream)->device : device_for(ptr);
  DeviceGuard guard(cuda(), device);
  OMNIRT_CUDA_CALL(cuda(), cudaMemsetAsync, ptr, value, size, cuda_stream(stream));
}

void CudaBackend::mem_get_info(int32_t device, size_t& free_bytes, size_t& total_bytes) {
  DeviceGuard guard(cuda(), checked_device(device));
  OMNIRT_CUDA_CALL(cuda(), cudaMemGetInfo, &free_bytes, &total_bytes);
}

void CudaBackend::memory_stats(int32_t device, omnirt_memory_stats& stats) {
  allocator(device).stats(stats);
  // The engine's modules allocate through the same allocators (cuda_engine.cpp).
  if (engine_.memory_counted(this)) stats.known |= OMNIRT_STAT_MODULE_MEMORY;
}

void CudaBackend::reset_memory_stats(int32_t device) {
  allocator(device).reset_stats();
}

void CudaBackend::device_synchronize(int32_t device) {
  DeviceGuard guard(cuda(), checked_device(device));
  OMNIRT_CUDA_CALL(cuda(), cudaDeviceSynchronize);
}

}  // namespace omnirt::cuda

OMNIRT_DEFINE_BACKEND(omnirt::cuda::CudaBackend, "cuda", OMNIRT_BACKEND_VERSION)
