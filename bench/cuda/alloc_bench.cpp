// Benchmark (a): device alloc+free pairs through the cuda plugin's caching
// allocator, next to cudaMalloc/cudaFree and cudaMallocAsync/cudaFreeAsync
// from the device's default pool, in one run. Each iteration is one pair.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <memory>

#include "cuda_plugin.h"

namespace {

using omnirt::cuda_test::CudaPlugin;

CudaPlugin& plugin(const char* allocator) {
  static std::unique_ptr<CudaPlugin> caching, async;
  std::unique_ptr<CudaPlugin>& slot = std::string(allocator) == "caching" ? caching : async;
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

void OmniRT_MallocDevice(benchmark::State& state, const char* allocator) {
  if (!have_gpu(state)) return;
  CudaPlugin& p = plugin(allocator);
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

BENCHMARK_CAPTURE(OmniRT_MallocDevice, caching, "caching")->Apply(sizes);
BENCHMARK_CAPTURE(OmniRT_MallocAsync, caching, "caching")->Apply(sizes);
BENCHMARK_CAPTURE(OmniRT_MallocAsync, async_pool, "async")->Apply(sizes);
BENCHMARK(Cuda_Malloc_Free)->Apply(sizes);
BENCHMARK(Cuda_MallocAsync_FreeAsync)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
