#include "cuda_memory.h"

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "caching_allocator.h"
#include "cuda_device.h"
#include "cuda_status.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cuda {
namespace {

[[noreturn]] void out_of_memory(size_t size, const std::string& why = "") {
  plugin::fail(OMNIRT_STATUS_OUT_OF_MEMORY,
               "cuda: out of device memory allocating " + std::to_string(size) + " bytes" + why,
               int64_t(cudaErrorMemoryAllocation));
}

// Sizes of live allocations, for the allocators CUDA keeps no books for.
class LiveSizes {
 public:
  void add(void* ptr, size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    sizes_.emplace(ptr, size);
    allocated_ += size;
    if (allocated_ > peak_) peak_ = allocated_;
    ++allocs_;
  }
  void remove(void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sizes_.find(ptr);
    if (it == sizes_.end()) {
      plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, "ptr: not a live allocation of this device");
    }
    allocated_ -= it->second;
    sizes_.erase(it);
    ++frees_;
  }
  void fill(omnirt_memory_stats& stats) const {
    std::lock_guard<std::mutex> lock(mutex_);
    stats.allocated_bytes = allocated_;
    stats.peak_bytes = peak_;
    stats.alloc_count = allocs_;
    stats.free_count = frees_;
    stats.known |= OMNIRT_STAT_ALLOCATED_BYTES | OMNIRT_STAT_PEAK_BYTES | OMNIRT_STAT_ALLOC_COUNT |
                   OMNIRT_STAT_FREE_COUNT;
  }
  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    peak_ = allocated_;
    allocs_ = frees_ = 0;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<void*, size_t> sizes_;
  uint64_t allocated_ = 0, peak_ = 0, allocs_ = 0, frees_ = 0;
};

// cudaMalloc/cudaFree on every call. cudaFree waits for the whole device,
// which also orders it after the stream of a free_async.
class PlainAllocator final : public DeviceAllocator {
 public:
  PlainAllocator(const Symbols& cuda, int device) : cuda_(cuda), device_(device) {}
  void* allocate(size_t size, cudaStream_t) override {
    if (size == 0) return nullptr;
    DeviceGuard guard(cuda_, device_);
    void* ptr = nullptr;
    const cudaError_t status = cuda_.cudaMalloc(&ptr, size);
    if (status == cudaErrorMemoryAllocation) {
      cuda_.cudaGetLastError();  // not sticky: clear it for the next call
      out_of_memory(size);
    }
    check(cuda_, status, "cudaMalloc");
    live_.add(ptr, size);
    return ptr;
  }
  void free(void* ptr, cudaStream_t) override {
    if (ptr == nullptr) return;
    live_.remove(ptr);
    DeviceGuard guard(cuda_, device_);
    OMNIRT_CUDA_CALL(cuda_, cudaFree, ptr);
  }
  void stats(omnirt_memory_stats& stats) override { live_.fill(stats); }
  void reset_stats() override { live_.reset(); }

 private:
  const Symbols& cuda_;
  const int device_;
  LiveSizes live_;
};

// A private stream-ordered pool per device: the process's default pool and
// its settings stay untouched (rule 11). Its release threshold is unbounded,
// so freed memory stays in the pool across synchronizations.
class AsyncAllocator final : public DeviceAllocator {
 public:
  AsyncAllocator(const Symbols& cuda, int device) : cuda_(cuda), device_(device) {
    DeviceGuard guard(cuda_, device_);
    size_t free_bytes = 0;
    OMNIRT_CUDA_CALL(cuda_, cudaMemGetInfo, &free_bytes, &device_bytes_);
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    OMNIRT_CUDA_CALL(cuda_, cudaMemPoolCreate, &pool_, &props);
    uint64_t unbounded = UINT64_MAX;
    OMNIRT_CUDA_CALL(cuda_, cudaMemPoolSetAttribute, pool_, cudaMemPoolAttrReleaseThreshold,
                     &unbounded);
  }
  ~AsyncAllocator() override {
    try {
      DeviceGuard guard(cuda_, device_);
      cuda_.cudaDeviceSynchronize();
      cuda_.cudaMemPoolDestroy(pool_);
    } catch (...) {  // destruction cannot fail; a lost device keeps its pool anyway
    }
  }
  void* allocate(size_t size, cudaStream_t stream) override {
    if (size == 0) return nullptr;
    // Refused before the pool sees it: asked for more than the device has,
    // the pool first takes all of the device's free memory, for seconds
    // (1.5-2.6 s on an H200, 142.8 of its 143.8 GiB), and CUDA calls of
    // other processes fail with out of memory meanwhile.
    if (size > device_bytes_) out_of_memory(size, ": the device has " + std::to_string(device_bytes_));
    DeviceGuard guard(cuda_, device_);
    void* ptr = nullptr;
    const cudaError_t status = cuda_.cudaMallocFromPoolAsync(&ptr, size, pool_, stream);
    if (status == cudaErrorMemoryAllocation) {
      cuda_.cudaGetLastError();
      out_of_memory(size);
    }
    check(cuda_, status, "cudaMallocFromPoolAsync");
    live_.add(ptr, size);
    return ptr;
  }
  void free(void* ptr, cudaStream_t stream) override {
    if (ptr == nullptr) return;
    live_.remove(ptr);
    DeviceGuard guard(cuda_, device_);
    OMNIRT_CUDA_CALL(cuda_, cudaFreeAsync, ptr, stream);
  }
  void stats(omnirt_memory_stats& stats) override {
    live_.fill(stats);
    uint64_t reserved = 0;
    OMNIRT_CUDA_CALL(cuda_, cudaMemPoolGetAttribute, pool_, cudaMemPoolAttrReservedMemCurrent,
                     &reserved);
    stats.reserved_bytes = reserved;
    stats.known |= OMNIRT_STAT_RESERVED_BYTES;
  }
  void reset_stats() override {
    live_.reset();
    DeviceGuard guard(cuda_, device_);
    OMNIRT_CUDA_CALL(cuda_, cudaDeviceSynchronize);
    OMNIRT_CUDA_CALL(cuda_, cudaMemPoolTrimTo, pool_, size_t{0});
  }

 private:
  const Symbols& cuda_;
  const int device_;
  size_t device_bytes_ = 0;  // the device's memory, all of it
  cudaMemPool_t pool_ = nullptr;
  LiveSizes live_;
};

// CUDA under the CachingAllocator, each call on its device. Completion events
// come from a free list: creating one per cross-stream reuse would cost more
// than the reuse saves.
class CudaDeviceMemory final : public DeviceMemory {
 public:
  CudaDeviceMemory(const Symbols& cuda, int device) : cuda_(cuda), device_(device) {}
  ~CudaDeviceMemory() override {
    for (Event event : idle_events_) cuda_.cudaEventDestroy(static_cast<cudaEvent_t>(event));
  }
  void* allocate(size_t bytes) override {
    DeviceGuard guard(cuda_, device_);
    void* ptr = nullptr;
    const cudaError_t status = cuda_.cudaMalloc(&ptr, bytes);
    if (status == cudaErrorMemoryAllocation) {
      cuda_.cudaGetLastError();
      return nullptr;
    }
    check(cuda_, status, "cudaMalloc");
    return ptr;
  }
  void deallocate(void* ptr) override {
    DeviceGuard guard(cuda_, device_);
    OMNIRT_CUDA_CALL(cuda_, cudaFree, ptr);
  }
  Event record(Stream stream) override {
    DeviceGuard guard(cuda_, device_);
    cudaEvent_t event = nullptr;
    if (idle_events_.empty()) {
      OMNIRT_CUDA_CALL(cuda_, cudaEventCreateWithFlags, &event, cudaEventDisableTiming);
    } else {
      event = static_cast<cudaEvent_t>(idle_events_.back());
      idle_events_.pop_back();
    }
    OMNIRT_CUDA_CALL(cuda_, cudaEventRecord, event, static_cast<cudaStream_t>(stream));
    return event;
  }
  bool done(Event event) override {
    const cudaError_t status = cuda_.cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (status == cudaErrorNotReady) return false;
    check(cuda_, status, "cudaEventQuery");
    return true;
  }
  void release(Event event) override { idle_events_.push_back(event); }
  void synchronize() override {
    DeviceGuard guard(cuda_, device_);
    OMNIRT_CUDA_CALL(cuda_, cudaDeviceSynchronize);
  }

 private:
  const Symbols& cuda_;
  const int device_;
  std::vector<Event> idle_events_;  // guarded by the allocator's lock
};

class CudaCachingAllocator final : public DeviceAllocator {
 public:
  CudaCachingAllocator(const Symbols& cuda, int device) : memory_(cuda, device), cache_(memory_) {}
  void* allocate(size_t size, cudaStream_t stream) override {
    return cache_.allocate(size, stream);
  }
  void free(void* ptr, cudaStream_t stream) override { cache_.free(ptr, stream); }
  void stats(omnirt_memory_stats& stats) override {
    const CachingStats s = cache_.stats();
    stats.allocated_bytes = s.allocated_bytes;
    stats.peak_bytes = s.peak_bytes;
    stats.reserved_bytes = s.reserved_bytes;
    stats.alloc_count = s.alloc_count;
    stats.free_count = s.free_count;
    stats.known = OMNIRT_STAT_ALLOCATED_BYTES | OMNIRT_STAT_PEAK_BYTES |
                  OMNIRT_STAT_RESERVED_BYTES | OMNIRT_STAT_ALLOC_COUNT | OMNIRT_STAT_FREE_COUNT;
  }
  void reset_stats() override {
    cache_.release_cached();
    cache_.reset_stats();
  }
  void stream_retired(cudaStream_t stream) override { cache_.stream_retired(stream); }

 private:
  CudaDeviceMemory memory_;
  CachingAllocator cache_;
};

}  // namespace

std::unique_ptr<DeviceAllocator> make_allocator(const std::string& kind, const Symbols& cuda,
                                                int device) {
  if (kind == "caching") return std::make_unique<CudaCachingAllocator>(cuda, device);
  if (kind == "async") return std::make_unique<AsyncAllocator>(cuda, device);
  if (kind == "plain") return std::make_unique<PlainAllocator>(cuda, device);
  plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
               "cuda: option allocator: '" + kind + "' is not one of caching, async, plain");
}

}  // namespace omnirt::cuda
