// The caching allocator's own cost, without CUDA: alloc+free pairs served
// from its cache over a host-memory stand-in device, next to the floor any
// exact, thread-safe bookkeeping pays (a lock taken and released per call),
// in one run. Runs anywhere; on a GPU host it splits cuda_alloc_bench's
// figure into the allocator's share and the plugin path's.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "caching_allocator.h"

namespace {

using omnirt::cuda::CachingAllocator;
using omnirt::cuda::DeviceMemory;

// Host memory as device memory; every event is complete at once.
class HostMemory final : public DeviceMemory {
 public:
  void* allocate(size_t bytes) override { return std::aligned_alloc(512, bytes); }
  void deallocate(void* ptr) override { std::free(ptr); }
  Event record(Stream) override { return reinterpret_cast<Event>(1); }
  bool done(Event) override { return true; }
  void release(Event) override {}
  void synchronize() override {}
};

// One pair per iteration, with `live` other blocks of 50 sizes held, as a
// server holds its weights and caches.
void CachingAllocator_AllocFree(benchmark::State& state) {
  HostMemory memory;
  CachingAllocator cache(memory);
  std::vector<void*> held;
  for (int64_t i = 0; i < state.range(1); ++i) held.push_back(cache.allocate(512 * (i % 50 + 1), nullptr));
  const size_t size = size_t(state.range(0));
  for (auto _ : state) {
    void* ptr = cache.allocate(size, nullptr);
    benchmark::DoNotOptimize(ptr);
    cache.free(ptr, nullptr);
  }
  for (void* ptr : held) cache.free(ptr, nullptr);
}
BENCHMARK(CachingAllocator_AllocFree)->ArgNames({"size", "live"})->Args({4 << 10, 0})->Args({4 << 10, 1000})->Args({1 << 20, 1000});

// The floor: the two lock/unlock pairs of one alloc+free.
void Floor_TwoLockPairs(benchmark::State& state) {
  std::mutex mutex;
  for (auto _ : state) {
    for (int i = 0; i < 2; ++i) {
      mutex.lock();
      benchmark::ClobberMemory();
      mutex.unlock();
    }
  }
}
BENCHMARK(Floor_TwoLockPairs);

}  // namespace

BENCHMARK_MAIN();
