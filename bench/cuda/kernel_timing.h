// What the kernel benchmark's two modes share (kernel_bench.cpp times the
// plugin's named ops against ATen, kernel_sweep.cpp times candidate kernels):
// the device's peak memory bandwidth, per-call timing between CUDA events,
// and input sets of a case large enough together that L2 cannot hold them.
#ifndef OMNIRT_BENCH_CUDA_KERNEL_TIMING_H_
#define OMNIRT_BENCH_CUDA_KERNEL_TIMING_H_

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "op_cases.h"

namespace omnirt::cuda_test {

inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
  }
}

struct Peak {
  double bytes_per_second = 0;  // 0: unknown
  std::string how;
};

// NVML's answer, for a runtime whose memory-clock attribute fails: the
// library the driver installs, prototypes as nvml.h declares them (stable).
inline Peak nvml_peak(int device) {
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (nvml == nullptr) return {0, "unknown (no memory clock from CUDA, no libnvidia-ml.so.1)"};
  using Init = int (*)();
  using ByBusId = int (*)(const char*, void**);
  using Clock = int (*)(void*, int, unsigned*);
  using Width = int (*)(void*, unsigned*);
  auto init = reinterpret_cast<Init>(dlsym(nvml, "nvmlInit_v2"));
  auto by_bus_id = reinterpret_cast<ByBusId>(dlsym(nvml, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto max_clock = reinterpret_cast<Clock>(dlsym(nvml, "nvmlDeviceGetMaxClockInfo"));
  auto bus_width = reinterpret_cast<Width>(dlsym(nvml, "nvmlDeviceGetMemoryBusWidth"));
  char bus[32] = "";
  void* handle = nullptr;
  unsigned mhz = 0, bits = 0;
  constexpr int kNvmlClockMem = 2;
  if (init == nullptr || by_bus_id == nullptr || max_clock == nullptr || bus_width == nullptr ||
      cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess || init() != 0 ||
      by_bus_id(bus, &handle) != 0 || max_clock(handle, kNvmlClockMem, &mhz) != 0 ||
      bus_width(handle, &bits) != 0 || mhz == 0 || bits == 0) {
    return {0, "unknown (no memory clock from CUDA or NVML)"};
  }
  return {2.0 * mhz * 1e6 * bits / 8,
          "NVML: 2 x " + std::to_string(mhz) + " MHz x " + std::to_string(bits) + " bit / 8"};
}

// The device's peak memory bandwidth. CUDA 13 dropped cudaDeviceProp's
// memoryClockRate; the attribute remains (in kHz), with NVML behind it.
inline Peak memory_peak(int device) {
  int khz = 0, bits = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess &&
      khz > 0 && bits > 0) {
    return {2.0 * khz * 1e3 * bits / 8, "cudaDeviceGetAttribute: 2 x " + std::to_string(khz / 1000) +
                                            " MHz x " + std::to_string(bits) + " bit / 8"};
  }
  cudaGetLastError();  // not sticky; cleared so later checks see their own errors
  return nvml_peak(device);
}

inline double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// Seconds per call of `run(i)` (i counts calls), `calls` calls between two
// events. A first call goes before the start event: the GPU reaches that
// event when the call completes, with the calls after it already queued, so
// the time holds no latency of launching onto an idle GPU. Timed from the
// first call, a round of n calls held that latency once: H200, a copy of 32
// MiB (64 MiB moved), back to back, 17.30 us a call in rounds of 600,
// 17.56 in rounds of 20 and 18.44 in rounds of 5 (5.7 us a round; the
// 64 MiB cases' rounds of about 2 ms hold 20-80 calls).
inline double seconds_per_call(const std::function<void(int)>& run, int calls) {
  cudaEvent_t start, stop;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  run(0);
  check_cuda(cudaEventRecord(start, nullptr), "cudaEventRecord");
  for (int i = 1; i <= calls; ++i) run(i);
  check_cuda(cudaEventRecord(stop, nullptr), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms * 1e-3 / calls;
}

// Medians of each runner's seconds per call over `rounds` rounds of `calls`
// calls: every round runs each runner once, starting one further on, so
// that drift and order weigh on all alike.
inline std::vector<double> median_seconds_in_turns(const std::vector<std::function<void(int)>>& runners,
                                                   int calls, int rounds) {
  std::vector<std::vector<double>> seconds(runners.size());
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < runners.size(); ++i) {
      const size_t r = (i + size_t(round)) % runners.size();
      seconds[r].push_back(seconds_per_call(runners[r], calls));
    }
  }
  std::vector<double> medians;
  for (const auto& s : seconds) medians.push_back(median(s));
  return medians;
}

// Input sets of case `c` (op_inputs), enough that three L2s' worth of data
// lies between two uses of one (at most 16), and the bytes one call reads
// and writes.
struct CaseInputs {
  std::vector<std::vector<at::Tensor>> sets;
  size_t bytes = 0;
};

inline CaseInputs case_inputs(const OpCase& c, size_t l2_bytes) {
  const auto options = torch::TensorOptions().device(torch::kCUDA).dtype(c.dtype);
  CaseInputs in;
  in.sets = {op_inputs(c.op, c.shape, options)};
  for (const at::Tensor& t : in.sets[0]) in.bytes += t.nbytes();
  in.bytes += in.sets[0][0].nbytes();  // the output
  const size_t count = std::min<size_t>(16, 1 + 3 * l2_bytes / in.bytes);
  while (in.sets.size() < count) in.sets.push_back(op_inputs(c.op, c.shape, options));
  return in;
}

inline std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text;
  for (int64_t d : shape) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

}  // namespace omnirt::cuda_test

#endif  // OMNIRT_BENCH_CUDA_KERNEL_TIMING_H_
