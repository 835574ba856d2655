// The caching allocator's own cost, without CUDA: alloc+free pairs served
// from its cache over a host-memory stand-in device, next to what the two
// lock/unlock pairs of one alloc+free cost with a std::mutex and with the
// allocator's BiasedMutex, in one run. Runs anywhere; on a GPU host it splits
// cuda_alloc_bench's figure into the allocator's share and the plugin path's.
//
// The process gets an idle second thread first, as a CUDA process has: glibc
// drops the locked instructions of an uncontended std::mutex while a process
// has one thread, which would understate the mutex here 2-3x.
#include <benchmark/benchmark.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
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

// The two lock/unlock pairs of one alloc+free.
template <class Mutex>
void TwoLockPairs(benchmark::State& state) {
  Mutex mutex;
  for (auto _ : state) {
    for (int i = 0; i < 2; ++i) {
      mutex.lock();
      benchmark::ClobberMemory();
      mutex.unlock();
    }
  }
}
BENCHMARK_TEMPLATE(TwoLockPairs, std::mutex);
BENCHMARK_TEMPLATE(TwoLockPairs, omnirt::cuda::BiasedMutex);

// A thread that waits, doing nothing, until the benchmarks are done.
class IdleThread {
 public:
  IdleThread() : thread_([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [this] { return stop_; });
  }) {}
  ~IdleThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  const IdleThread idle;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
