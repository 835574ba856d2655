// Benchmark (d): host<->device copies from pinned memory through the cuda
// plugin, as bytes per second and as a fraction of the link's peak. The peak
// is PCIe's per-direction payload rate for the link the kernel reports for
// the GPU (sysfs current_link_speed/width); where none is reported, Gen5 x16,
// the H100 SXM's host link: 32 GT/s x 16 lanes x 128/130 / 8 = 63.0 GB/s.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "cuda_plugin.h"

namespace {

using omnirt::cuda_test::CudaPlugin;

std::string sysfs(const std::string& bus_id, const char* file) {
  std::ifstream in("/sys/bus/pci/devices/" + bus_id + "/" + file);
  std::string value;
  std::getline(in, value);
  return value;
}

// Peak payload bytes/s of one direction of the GPU's PCIe link.
double link_peak(std::string* how) {
  char bus[32] = "";
  cudaDeviceGetPCIBusId(bus, sizeof bus, 0);
  std::string id = bus;
  for (char& c : id) c = char(std::tolower(c));
  const std::string speed = sysfs(id, "current_link_speed");  // "32.0 GT/s PCIe"
  const std::string width = sysfs(id, "current_link_width");  // "16"
  double gts = 0, lanes = 0;
  if (!speed.empty() && !width.empty()) {
    gts = std::stod(speed);
    lanes = std::stod(width);
  }
  if (gts < 8 || lanes < 1) {  // absent or virtualized: assume the H100 SXM's link
    *how = "assumed PCIe Gen5 x16 (sysfs for " + id + ": '" + speed + "' x'" + width + "')";
    gts = 32, lanes = 16;
  } else {
    *how = "sysfs " + id + ": " + speed + " x" + width;
  }
  return gts * 1e9 * lanes * (128.0 / 130.0) / 8.0;  // 128b/130b encoding (Gen3+)
}

void Memcpy(benchmark::State& state, int32_t kind) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  static CudaPlugin p;
  const size_t size = size_t(state.range(0));
  void *host = nullptr, *device = nullptr;
  p.vt()->malloc_host(p.state(), size, &host);
  p.vt()->malloc_device(p.state(), 0, size, &device);
  omnirt_stream* stream = nullptr;
  p.vt()->stream_create(p.state(), 0, &stream);
  void* dst = kind == OMNIRT_MEMCPY_HOST_TO_DEVICE ? device : host;
  const void* src = kind == OMNIRT_MEMCPY_HOST_TO_DEVICE ? host : device;
  for (auto _ : state) {
    p.vt()->memcpy_async(p.state(), dst, src, size, kind, stream);
    p.vt()->stream_synchronize(p.state(), stream);
  }
  std::string how;
  const double peak = link_peak(&how);
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(size));
  state.counters["GBps"] = benchmark::Counter(double(size) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["of_peak"] = benchmark::Counter(double(size) / peak, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel("peak " + std::to_string(peak / 1e9).substr(0, 5) + " GB/s: " + how);
  p.vt()->stream_destroy(p.state(), stream);
  p.vt()->free_device(p.state(), 0, device);
  p.vt()->free_host(p.state(), host);
}

BENCHMARK_CAPTURE(Memcpy, H2D, int32_t{OMNIRT_MEMCPY_HOST_TO_DEVICE})
    ->Arg(1 << 20)->Arg(16 << 20)->Arg(256 << 20)->UseRealTime();
BENCHMARK_CAPTURE(Memcpy, D2H, int32_t{OMNIRT_MEMCPY_DEVICE_TO_HOST})
    ->Arg(1 << 20)->Arg(16 << 20)->Arg(256 << 20)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
