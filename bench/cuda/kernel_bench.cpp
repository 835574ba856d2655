// Benchmark (e): the cuda plugin's named-op kernels against ATen's, every
// case of tests/cuda/op_cases.h (op x dtype x shape class), in one process on
// one stream. For each case, OmniRT (op_run through the plugin's vtable, as
// the host calls it) and ATen (at::rms_norm, at::layer_norm, at::softmax, and
// geglu as at::gelu then a multiply) take turns in rounds; a round enqueues
// enough calls for about 2 ms of GPU time between two CUDA events, rotating
// over enough input sets that L2 cannot hold them, and is timed when the
// second event completes. Printed per case: the medians in µs per call, the
// speedup (ATen / OmniRT), the bandwidth (bytes read + written per call over
// time) and its fraction of the device's peak (2 x memory clock x bus width
// / 8), and whether OmniRT's result matches ATen's within the tests'
// tolerance. The exit status is 1 when a result does not match.
//
//   cuda_kernel_bench [SUBSTRING]           (only cases whose line contains it)
//   cuda_kernel_bench --sweep [SUBSTRING]   (candidate row kernels: kernel_sweep.h)
#include <cuda_runtime_api.h>
#include <torch/cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cuda_plugin.h"
#include "kernel_sweep.h"
#include "kernel_timing.h"
#include "op_cases.h"
#include "torch_helpers.h"

namespace {

using namespace omnirt::cuda_test;

constexpr int kRounds = 9;
constexpr double kRoundSeconds = 2e-3;

// Medians of OmniRT's and ATen's seconds per call, taking turns.
std::pair<double, double> time_both(const std::function<void(int)>& omnirt,
                                    const std::function<void(int)>& aten) {
  for (int i = 0; i < 3; ++i) omnirt(i), aten(i);  // warm: ATen's allocations, first launches
  const double rough = std::max(seconds_per_call(omnirt, 3), seconds_per_call(aten, 3));
  const int calls = std::max(5, int(kRoundSeconds / std::max(rough, 1e-7)));
  std::vector<double> ours, theirs;
  for (int round = 0; round < kRounds; ++round) {
    if (round % 2 == 0) {
      ours.push_back(seconds_per_call(omnirt, calls));
      theirs.push_back(seconds_per_call(aten, calls));
    } else {
      theirs.push_back(seconds_per_call(aten, calls));
      ours.push_back(seconds_per_call(omnirt, calls));
    }
  }
  return {median(ours), median(theirs)};
}

struct Totals {
  int cases = 0, slower = 0, big = 0, big_under_80 = 0, mismatches = 0;
};

void run_case(CudaPlugin& plugin, const OpCase& c, const Peak& peak, size_t l2_bytes,
              Totals& totals) {
  const CaseInputs in = case_inputs(c, l2_bytes);
  const std::vector<std::vector<at::Tensor>>& sets = in.sets;
  const size_t bytes = in.bytes;  // read and written per call
  std::vector<at::Tensor> outputs;
  std::vector<std::vector<DLTensor>> dl_inputs;
  std::vector<DLTensor> dl_outputs;
  for (const auto& set : sets) {
    outputs.push_back(torch::full_like(set[0], NAN));
    dl_inputs.emplace_back();
    for (const at::Tensor& t : set) dl_inputs.back().push_back(dl_view(t));
  }
  for (const at::Tensor& t : outputs) dl_outputs.push_back(dl_view(t));

  const omnirt_backend_vtable& vt = *plugin.vt();
  omnirt_status status = OMNIRT_STATUS_OK;
  auto omnirt = [&](int i) {
    const size_t s = size_t(i) % sets.size();
    const omnirt_status st = vt.op_run(plugin.state(), c.op.c_str(), dl_inputs[s].data(),
                                       dl_inputs[s].size(), &dl_outputs[s], 1, nullptr, 0, nullptr);
    if (st != OMNIRT_STATUS_OK) status = st;
  };
  at::Tensor aten_result;
  auto aten = [&](int i) { aten_result = aten_op(c.op, sets[size_t(i) % sets.size()]); };
  const auto [ours, theirs] = time_both(omnirt, aten);

  // OmniRT's last output of set 0 against ATen's result on set 0.
  omnirt(0);
  aten(0);
  torch::cuda::synchronize();
  const double tol = op_tolerance(c.dtype);
  const at::Tensor got = outputs[0].to(torch::kFloat), want = aten_result.to(torch::kFloat);
  const bool ok = status == OMNIRT_STATUS_OK && torch::allclose(got, want, tol, tol);
  const std::string check = status != OMNIRT_STATUS_OK ? "FAILED: " + last_error()
                            : ok ? "ok"
                                 : "MISMATCH: max abs error " +
                                       std::to_string((got - want).abs().max().item<float>());

  const double mib = double(bytes) / (1 << 20);
  const double gbs = double(bytes) / ours / 1e9, aten_gbs = double(bytes) / theirs / 1e9;
  auto of_peak = [&](double gb) { return peak.bytes_per_second > 0 ? 100 * gb * 1e9 / peak.bytes_per_second : 0; };
  const std::string shape = shape_text(c.shape);
  std::printf("%-10s %-4s %-11s %-15s %7.1f %9.1f %9.1f %6.2f %7.0f %5.1f %7.0f %5.1f  %s\n",
              c.op.c_str(), dtype_name(c.dtype), shape.c_str(), c.shape_class.c_str(), mib,
              ours * 1e6, theirs * 1e6, theirs / ours, gbs, of_peak(gbs), aten_gbs,
              of_peak(aten_gbs), check.c_str());
  std::fflush(stdout);
  ++totals.cases;
  if (ours > theirs) ++totals.slower;
  if (!ok) ++totals.mismatches;
  // The bandwidth goal is for shapes of >= 64 MiB.
  if (mib >= 64) {
    ++totals.big;
    if (of_peak(gbs) < 80) ++totals.big_under_80;
  }
}

// Device-to-device copies of `size` bytes, rotating over enough buffers that
// L2 holds none of them: the practical ceiling at that size, for scale.
void print_copy(const Peak& peak, size_t size, size_t l2_bytes) {
  const size_t buffers = std::min<size_t>(16, 1 + 2 * l2_bytes / size);
  std::vector<at::Tensor> from, to;
  for (size_t i = 0; i < buffers; ++i) {
    from.push_back(torch::empty({int64_t(size)}, torch::TensorOptions().device(torch::kCUDA).dtype(torch::kUInt8)));
    to.push_back(torch::empty_like(from.back()));
  }
  auto copy = [&](int i) {
    const size_t k = size_t(i) % buffers;
    check_cuda(cudaMemcpyAsync(to[k].data_ptr(), from[k].data_ptr(), size, cudaMemcpyDeviceToDevice, nullptr),
               "cudaMemcpyAsync");
  };
  copy(0);
  const int calls = std::max<int>(5, int((size_t(5) << 30) / size));
  std::vector<double> s;
  for (int i = 0; i < kRounds; ++i) s.push_back(seconds_per_call(copy, calls));
  const double gbs = 2.0 * size / median(s) / 1e9;
  std::printf("# copy (cudaMemcpyAsync device to device, %.0f MiB; %.0f MiB read + written): %.0f GB/s",
              size / 1048576.0, 2 * size / 1048576.0, gbs);
  if (peak.bytes_per_second > 0) std::printf(" = %.1f%% of peak", 100 * gbs * 1e9 / peak.bytes_per_second);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const bool sweep = argc > 1 && std::string(argv[1]) == "--sweep";
  const int first_arg = sweep ? 2 : 1;
  const std::string filter = argc > first_arg ? argv[first_arg] : "";
  CudaPlugin plugin;
  std::string reason;
  if (!plugin.available(&reason) || plugin.device_count() == 0 || !torch::cuda::is_available()) {
    plugin.available(&reason);
    std::printf("cuda_kernel_bench: no CUDA device (%s)\n", reason.c_str());
    return 0;
  }
  try {
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    const Peak peak = memory_peak(0);
    std::printf("# %s, %d SMs, L2 %.0f MiB; peak memory bandwidth %.0f GB/s (%s)\n", prop.name,
                prop.multiProcessorCount, prop.l2CacheSize / 1048576.0, peak.bytes_per_second / 1e9,
                peak.how.c_str());
    // The largest copy, and one of the smallest cases' 64 MiB read + written.
    for (size_t size : {size_t(1) << 30, size_t(32) << 20}) print_copy(peak, size, size_t(prop.l2CacheSize));
    if (sweep) return run_sweep(plugin, filter, peak, prop);
    std::printf("# us: median per call over %d rounds; x: ATen us / OmniRT us (>= 1: OmniRT as fast or "
                "faster); GB/s: bytes read + written per call / time; %%pk: of peak\n",
                kRounds);
    std::printf("%-10s %-4s %-11s %-15s %7s %9s %9s %6s %7s %5s %7s %5s  %s\n", "op", "type", "shape",
                "class", "MiB", "omnirt_us", "aten_us", "x", "GB/s", "%pk", "aten", "%pk", "check");
    Totals totals;
    for (const OpCase& c : op_cases()) {
      const std::string line = c.op + " " + dtype_name(c.dtype) + " " + c.shape_class;
      if (line.find(filter) == std::string::npos) continue;
      run_case(plugin, c, peak, size_t(prop.l2CacheSize), totals);
    }
    std::printf("# %d cases: %d slower than ATen; %d of %d cases of >= 64 MiB under 80%% of peak; "
                "%d results not matching ATen\n",
                totals.cases, totals.slower, totals.big_under_80, totals.big, totals.mismatches);
    return totals.mismatches == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("cuda_kernel_bench: %s\n", e.what());
    return 1;
  }
}
