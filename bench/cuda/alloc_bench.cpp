// Benchmark (a): device alloc+free pairs through the cuda plugin's caching
// allocator, next to cudaMalloc/cudaFree and cudaMallocAsync/cudaFreeAsync
// from the device's default pool, in one run. Each iteration is one pair.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "cuda_plugin.h"

namespace {

using omnirt::cuda_test::CudaPlugin;

// One plugin instance per allocator and `instance` name, made on first use
// (from any benchmark thread). A separate instance keeps the threaded
// benchmark from revoking the single-threaded ones' lock bias.
CudaPlugin& plugin(const std::string& allocator, const std::string& instance = "") {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<CudaPlugin>> plugins;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<CudaPlugin>& slot = plugins[allocator + "/" + instance];
  if (!slot) slot = std::make_unique<CudaPlugin>(CudaPlugin::Options{{"allocator", allocator}});
  return *slot;
}

bool have_gpu(benchmark::State& state) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    state.SkipWithError("no CUDA device");
    return false;
  }
  return true;
}

void OmniRT_MallocDevice(benchmark::State& state, const char* allocator, const char* instance) {
  if (!have_gpu(state)) return;
  CudaPlugin& p = plugin(allocator, instance);
  const size_t size = size_t(state.range(0));
  void* ptr = nullptr;
  for (auto _ : state) {
    p.vt()->malloc_device(p.state(), 0, size, &ptr);
    p.vt()->free_device(p.state(), 0, ptr);
  }
  benchmark::DoNotOptimize(ptr);
}

void OmniRT_MallocAsync(benchmark::State& state, const char* allocator) {
  if (!have_gpu(state)) return;
  CudaPlugin& p = plugin(allocator);
  omnirt_stream* stream = nullptr;
  p.vt()->stream_create(p.state(), 0, &stream);
  const size_t size = size_t(state.range(0));
  void* ptr = nullptr;
  for (auto _ : state) {
    p.vt()->malloc_async(p.state(), size, stream, &ptr);
    p.vt()->free_async(p.state(), ptr, stream);
  }
  p.vt()->stream_destroy(p.state(), stream);
}

void Cuda_Malloc_Free(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const size_t size = size_t(state.range(0));
  void* ptr = nullptr;
  for (auto _ : state) {
    cudaMalloc(&ptr, size);
    cudaFree(ptr);
  }
}

void Cuda_MallocAsync_FreeAsync(benchmark::State& state) {
  if (!have_gpu(state)) return;
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  const size_t size = size_t(state.range(0));
  void* ptr = nullptr;
  for (auto _ : state) {
    cudaMallocAsync(&ptr, size, stream);
    cudaFreeAsync(ptr, stream);
  }
  cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
}

void sizes(benchmark::internal::Benchmark* b) { b->Arg(4 << 10)->Arg(1 << 20)->Arg(64 << 20); }

BENCHMARK_CAPTURE(OmniRT_MallocDevice, caching, "caching", "")->Apply(sizes);
BENCHMARK_CAPTURE(OmniRT_MallocAsync, caching, "caching")->Apply(sizes);
BENCHMARK_CAPTURE(OmniRT_MallocAsync, async_pool, "async")->Apply(sizes);
// The same pairs from several threads at once on one allocator: its lock is
// contended and no longer biased; what a server allocating from many threads
// pays, per pair and thread.
BENCHMARK_CAPTURE(OmniRT_MallocDevice, caching_threads, "caching", "threads")
    ->Arg(4 << 10)->Threads(2)->Threads(4);
BENCHMARK(Cuda_Malloc_Free)->Apply(sizes);
BENCHMARK(Cuda_MallocAsync_FreeAsync)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
