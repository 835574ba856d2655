#include "engine_memory.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#ifndef OMNIRT_CUDA_MEMORY_UNAVAILABLE
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#include <torch/csrc/cuda/CUDAPluggableAllocator.h>
#endif

namespace omnirt::cuda_engine {

#ifdef OMNIRT_CUDA_MEMORY_UNAVAILABLE

const char* const kMemoryUnavailable = OMNIRT_CUDA_MEMORY_UNAVAILABLE;

class ModulePool {};

std::shared_ptr<ModulePool> pool_for_load(int, bool) { return nullptr; }
PoolScope::PoolScope(ModulePool* pool) : pool_(pool), previous_(nullptr) {}
PoolScope::~PoolScope() = default;
OutsidePools::OutsidePools() : inside_(nullptr) {}
OutsidePools::~OutsidePools() = default;
OutsidePools::OutsidePools() : inside_(tls_pool) { tls_pool = nullptr; }  // every filter says no
OutsidePools::~OutsidePools() { tls_pool = inside_; }

std::shared_ptr<void> current_pool() { return nullptr; }
void warm_outside_pools() {}
const void* memory_scope_begin(const omnirt_cuda_engine_memory*) noexcept { return nullptr; }
void memory_scope_end(const void*) noexcept {}
int32_t memory_counted(void*, const char** reason) noexcept {
  if (reason != nullptr) *reason = kMemoryUnavailable;
  return 0;
}
uint64_t memory_detach(void*) noexcept { return 0; }

#else

const char* const kMemoryUnavailable = nullptr;

namespace {

namespace cca = c10::cuda::CUDACachingAllocator;
using PoolId = decltype(at::cuda::graph_pool_handle());
using AllocatorPtr = std::shared_ptr<cca::CUDAAllocator>;

// createOrIncrefPool takes the pool's allocator as a raw pointer in some
// PyTorch 2.x releases and as a shared_ptr in others: this converts to both.
// The allocator outlives the pool either way (Route keeps it).
struct AllocatorArg {
  const AllocatorPtr& allocator;
  operator cca::CUDAAllocator*() const { return allocator.get(); }  // NOLINT: implicit on purpose
  operator AllocatorPtr() const { return allocator; }               // NOLINT
};

// One plugin instance's memory, as the pools of its modules reach it. Never
// deleted: libtorch may free a pool's segment (an output released late, a
// cuBLAS workspace) whenever it likes, also after the instance is gone;
// memory_detach makes it call the plugin no more.
struct Route {
  explicit Route(const omnirt_cuda_engine_memory& m) : memory(m) {}

  // libtorch's side of the plugin's allocator: made once, shared by the pools.
  const AllocatorPtr& allocator() {
    std::call_once(made, [this] {
      pluggable = torch::cuda::CUDAPluggableAllocator::createCustomAllocator(
          [this](size_t size, int device, cudaStream_t stream) {
            return this->allocate(size, device, stream);
          },
          [this](void* ptr, size_t, int device, cudaStream_t) { this->free(ptr, device); });
    });
    return pluggable;
  }

  void* allocate(size_t size, int device, cudaStream_t stream) noexcept {
    std::lock_guard<std::mutex> lock(mutex);
    if (detached) return nullptr;  // libtorch reports it as out of memory
    void* ptr = memory.allocate(memory.context, int32_t(device), size, stream);
    if (ptr != nullptr) ++segments;
    return ptr;
  }

  // libtorch frees a segment once no block of it is in use, but work on the
  // streams that used it may still be queued: its own cudaFree waits for the
  // whole device, and so does this (the plugin's allocator may hand the
  // memory to other work at once).
  void free(void* ptr, int device) noexcept {
    std::lock_guard<std::mutex> lock(mutex);
    if (detached) return;  // left allocated: the plugin leaked its allocator (memory_detach)
    int current = -1;
    cudaGetDevice(&current);
    if (current != device) cudaSetDevice(device);
    cudaDeviceSynchronize();
    if (current != device && current >= 0) cudaSetDevice(current);
    cudaGetLastError();  // leave no error for libtorch's next check
    memory.free(memory.context, int32_t(device), ptr);
    --segments;
  }

  const omnirt_cuda_engine_memory memory;
  std::once_flag made;
  AllocatorPtr pluggable;
  std::mutex mutex;  // guards the three below, and every call into the plugin
  bool detached = false;
  uint64_t segments = 0;  // allocate calls not yet freed
  // Pools of destroyed modules that still held segments (a block libtorch
  // keeps, e.g. a cuBLAS workspace): emptied again on detach.
  std::vector<std::pair<c10::DeviceIndex, PoolId>> dead_pools;
  std::atomic<const char*> uncounted{nullptr};  // why its figures miss a module's memory
};

std::mutex registry_mutex;
std::unordered_map<void*, Route*>& routes() {  // live (not detached) routes by context
  static auto* map = new std::unordered_map<void*, Route*>;  // leaked: see Route
  return *map;
}

thread_local Route* tls_route = nullptr;       // the plugin's scope (loads)
thread_local ModulePool* tls_pool = nullptr;   // the module whose engine call this thread is in

// Asked once per engine call, not per allocation (the allocator's filter):
// a capture that starts inside the call is the graph cache's, which leaves
// the pools itself (OutsidePools).
bool current_stream_capturing() {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(c10::cuda::getCurrentCUDAStream().stream(), &status) != cudaSuccess) {
    cudaGetLastError();  // e.g. the legacy stream while a blocking stream captures
    return true;         // libtorch's own pools, then
  }
  return status != cudaStreamCaptureStatusNone;
}

// Why the plugin's figures cannot include libtorch's allocations here, or nullptr.
const char* allocator_refuses_pools() {
  static const std::string name = cca::name();
  if (name == "native") return nullptr;
  static const std::string why =
      "PyTorch's CUDA allocator is '" + name +
      "' (PYTORCH_CUDA_ALLOC_CONF), which has no pools for the backend's allocator";
  return why.c_str();
}

}  // namespace

namespace {

// What a module's outputs hold of its pool: once the module and they are all
// gone, libtorch empties the pool of what they left (the module's own
// destroy emptied the rest already).
struct PoolTail {
  PoolTail(Route* r, c10::DeviceIndex d, PoolId i) : route(r), device(d), id(i) {}
  ~PoolTail() {
    try {
      cca::emptyCache(id);
      std::lock_guard<std::mutex> lock(route->mutex);
      if (route->segments > 0) route->dead_pools.emplace_back(device, id);
    } catch (...) {  // a destructor must not throw
    }
  }
  Route* const route;
  const c10::DeviceIndex device;
  const PoolId id;
};

}  // namespace

class ModulePool {
 public:
  ModulePool(Route* route, int device)
      : device_(c10::DeviceIndex(device)),
        id_(at::cuda::graph_pool_handle()),
        tail_(std::make_shared<PoolTail>(route, device_, id_)) {
    cca::createOrIncrefPool(device_, id_, AllocatorArg{route->allocator()});
  }
  // The module is gone: its pool's segments go back to the plugin, except
  // those holding its outputs (PoolTail) or a block libtorch still uses.
  ~ModulePool() {
    try {
      cca::releasePool(device_, id_);
      cca::emptyCache(id_);
    } catch (...) {  // a destructor must not throw
    }
  }
  ModulePool(const ModulePool&) = delete;
  ModulePool& operator=(const ModulePool&) = delete;

  // A thread enters an engine call of the module. libtorch allows one
  // recording per pool at a time: the first thread in starts it, the last
  // one out ends it; the filter tells the threads inside from the others.
  void enter() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (inside_ == 0) {
      cca::beginAllocateToPool(device_, id_, [this](cudaStream_t) { return tls_pool == this; });
    }
    ++inside_;
  }
  void leave() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--inside_ > 0) return;
    try {
      cca::endAllocateToPool(device_, id_);
      cca::releasePool(device_, id_);  // beginAllocateToPool took a reference
    } catch (...) {
    }
  }

  const std::shared_ptr<void>& tail() const { return tail_; }

 private:
  const c10::DeviceIndex device_;
  const PoolId id_;
  const std::shared_ptr<void> tail_;  // a PoolTail
  std::mutex mutex_;
  int inside_ = 0;
};

std::shared_ptr<ModulePool> pool_for_load(int device, bool aoti) {
  Route* route = tls_route;
  if (route == nullptr) return nullptr;
  if (const char* why = allocator_refuses_pools()) {
    route->uncounted.store(why);
    return nullptr;
  }
  if (aoti) {
    route->uncounted.store(
        "an AOTInductor package was loaded: it keeps its weights in memory of its own "
        "(cudaMalloc), outside the backend's allocator");
  }
  // libtorch sets its CUDA allocator up on the first CUDA tensor: before
  // that it has no pools to make (an embedder that never used libtorch).
  (void)at::empty({0}, at::TensorOptions().device(at::kCUDA, c10::DeviceIndex(device)));
  try {
    return std::make_shared<ModulePool>(route, device);
  } catch (const c10::Error&) {  // the module loads all the same, its memory uncounted
    route->uncounted.store("PyTorch's CUDA allocator refused a pool for the backend's allocator");
    return nullptr;
  }
}

void warm_outside_pools() {
  thread_local cudaStream_t warmed = nullptr;
  thread_local int warmed_device = -1;
  const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
  if (stream.stream() == warmed && stream.device_index() == warmed_device) return;
  {
    const OutsidePools outside;
    (void)at::cuda::getCurrentCUDABlasHandle();
    (void)at::cuda::getCUDABlasLtWorkspace();
  }
  warmed = stream.stream();
  warmed_device = stream.device_index();
}

PoolScope::PoolScope(ModulePool* pool)
    : pool_(pool != nullptr && !current_stream_capturing() ? pool : nullptr), previous_(tls_pool) {
  if (pool_ == nullptr) return;
  warm_outside_pools();
  pool_->enter();
  tls_pool = pool_;
}

PoolScope::~PoolScope() {
  if (pool_ == nullptr) return;
  tls_pool = previous_;
  pool_->leave();
}

OutsidePools::OutsidePools() : inside_(tls_pool) { tls_pool = nullptr; }  // every filter says no
OutsidePools::~OutsidePools() { tls_pool = inside_; }

std::shared_ptr<void> current_pool() {
  return tls_pool != nullptr ? tls_pool->tail() : nullptr;
}

const void* memory_scope_begin(const omnirt_cuda_engine_memory* memory) noexcept {
  Route* const previous = tls_route;
  if (memory == nullptr || memory->struct_size < sizeof(omnirt_cuda_engine_memory)) {
    tls_route = nullptr;
    return previous;
  }
  try {
    std::lock_guard<std::mutex> lock(registry_mutex);
    Route*& route = routes()[memory->context];
    if (route == nullptr) route = new Route(*memory);  // never deleted: see Route
    tls_route = route;
  } catch (...) {
    tls_route = nullptr;  // out of host memory: libtorch's own memory, uncounted
  }
  return previous;
}

void memory_scope_end(const void* previous) noexcept {
  tls_route = static_cast<Route*>(const_cast<void*>(previous));
}

int32_t memory_counted(void* context, const char** reason) noexcept {
  const char* why = nullptr;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = routes().find(context);
    if (it != routes().end()) why = it->second->uncounted.load();
  }
  if (why == nullptr) {
    try {
      why = allocator_refuses_pools();
    } catch (...) {
      why = "PyTorch's CUDA allocator could not be asked for its kind";
    }
  }
  if (reason != nullptr) *reason = why;
  return why == nullptr ? 1 : 0;
}

uint64_t memory_detach(void* context) noexcept {
  Route* route = nullptr;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = routes().find(context);
    if (it == routes().end()) return 0;
    route = it->second;
    routes().erase(it);
  }
  std::vector<std::pair<c10::DeviceIndex, PoolId>> dead;
  {
    std::lock_guard<std::mutex> lock(route->mutex);
    dead.swap(route->dead_pools);
  }
  for (const auto& pool : dead) {
    try {
      cca::emptyCache(pool.second);  // what was freed since the module went
    } catch (...) {
    }
  }
  std::lock_guard<std::mutex> lock(route->mutex);
  route->detached = true;
  return route->segments;
}

#endif

}  // namespace omnirt::cuda_engine
