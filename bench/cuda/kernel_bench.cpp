// Benchmark (e): the cuda plugin's named-op kernels against ATen's, every
// case of tests/cuda/op_cases.h (op x dtype x shape class), in one process on
// one stream. For each case, OmniRT (op_run through the plugin's vtable, as
// the host calls it), ATen (at::rms_norm, at::layer_norm, at::softmax, and
// geglu as at::gelu then a multiply) and the streaming references (the least
// work that moves the same bytes: stream_kernels.cuh) take turns in rounds;
// a round enqueues enough calls for about 2 ms of GPU time between two CUDA
// events (after a first call outside them), rotating over enough input sets
// that L2 cannot hold them, and is timed when the second event completes.
// Printed per case: the medians in µs per call, the speedup (ATen /
// OmniRT), the bandwidth (bytes read + written per call over time) and its
// fraction of the device's peak (2 x memory clock x bus width / 8), the
// fastest reference's, OmniRT's bandwidth as a fraction of it, and whether
// OmniRT's result matches ATen's within the tests' tolerance and every
// reference wrote the bytes it claims to move. The exit status is 1 when a
// result does not match.
//
//   cuda_kernel_bench [SUBSTRING]           (only cases whose line contains it)
//   cuda_kernel_bench --sweep [SUBSTRING]   (candidate kernels: kernel_sweep.h;
//                                            "OP DTYPE ROWSxN": any shape)
#include <cuda_runtime_api.h>
#include <torch/cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_fatbin.h"
#include "cuda_plugin.h"
#include "kernel_sweep.h"
#include "kernel_timing.h"
#include "kernels/row_configs.h"
#include "op_cases.h"
#include "torch_helpers.h"

namespace {

using namespace omnirt::cuda_test;
namespace kernels = omnirt::cuda::kernels;

constexpr int kRounds = 9;
constexpr double kRoundSeconds = 2e-3;
// A kernel at this fraction of its streaming reference's bandwidth or more
// is at what the memory system gives a kernel of its size.
constexpr double kNearReference = 0.95;

// Medians of each runner's seconds per call, taking turns in rounds of
// about kRoundSeconds for the slowest.
std::vector<double> time_in_turns(const std::vector<std::function<void(int)>>& runners) {
  double rough = 0;
  for (const auto& run : runners) {
    for (int i = 0; i < 3; ++i) run(i);  // warm: ATen's allocations, first launches
    rough = std::max(rough, seconds_per_call(run, 3));
  }
  const int calls = std::max(5, int(kRoundSeconds / std::max(rough, 1e-7)));
  return median_seconds_in_turns(runners, calls, kRounds);
}

// The streaming references (stream_kernels.cuh) that move what a case of
// `op` moves: its x (and geglu's b) of set s read, output s written; 2 or 4
// packs a thread on a grid that fills the SMs, and one pack a thread on a
// block per kElementwiseThreads packs.
struct StreamReference {
  int inputs = 1;
  size_t bytes = 0;  // read and written per call
  std::vector<std::function<void(int)>> variants;
  std::vector<std::string> names;  // of variants' kernels
};

StreamReference stream_reference(const BenchFatbin& fatbin, const std::string& op,
                                 const std::vector<std::vector<at::Tensor>>& sets,
                                 std::vector<at::Tensor>& outputs, int sm_count, bool overlap) {
  struct Args {
    void *a, *b, *y;
    long long packs;
  };
  StreamReference ref;
  ref.inputs = op == "geglu" ? 2 : 1;
  ref.bytes = size_t(ref.inputs + 1) * outputs[0].nbytes();
  auto args = std::make_shared<std::vector<Args>>();
  for (size_t s = 0; s < sets.size(); ++s) {
    args->push_back({sets[s][0].data_ptr(), sets[s][ref.inputs - 1].data_ptr(), outputs[s].data_ptr(),
                     (long long)outputs[s].nbytes() / kernels::kPackBytes});
  }
  const long long packs = args->front().packs, threads = kernels::kElementwiseThreads;
  constexpr int kThreadsPerSm = 2048;  // resident threads per SM on sm_80 and sm_90
  const unsigned fill = unsigned(sm_count * kThreadsPerSm / threads);
  const unsigned all = unsigned((packs + threads - 1) / threads);
  for (const auto& [p, grid] : {std::pair{1, all}, std::pair{2, fill}, std::pair{4, fill}}) {
    const std::string name = "omnirt_stream" + std::to_string(ref.inputs) + "_p" + std::to_string(p);
    const void* function = fatbin.function(name);
    ref.names.push_back(name);
    ref.variants.push_back([=](int i) {
      Args& a = (*args)[size_t(i) % args->size()];
      void* pointers[] = {&a.a, &a.b, &a.y, &a.packs};
      launch_as_plugin(function, grid, unsigned(threads), pointers, overlap);
    });
  }
  return ref;
}

// Whether each streaming reference wrote what it claims into output 0 (set
// 0's x, or geglu's a ^ b, bit for bit) over an output of NaN: a reference
// that moved less would make every kernel look further from the memory's
// limit than it is. The names of those that did not, or "".
std::string references_not_moving_their_bytes(const StreamReference& ref,
                                              const std::vector<std::vector<at::Tensor>>& sets,
                                              at::Tensor& output) {
  const auto bits = output.element_size() == 4 ? torch::kInt32 : torch::kInt16;
  const at::Tensor want = ref.inputs == 1 ? sets[0][0].view(bits)
                                          : at::bitwise_xor(sets[0][0].view(bits), sets[0][1].view(bits));
  std::string wrong;
  for (size_t v = 0; v < ref.variants.size(); ++v) {
    output.fill_(NAN);
    ref.variants[v](0);
    torch::cuda::synchronize();
    if (!at::equal(output.view(bits), want)) wrong += (wrong.empty() ? "" : ",") + ref.names[v];
  }
  return wrong;
}

struct Totals {
  int cases = 0, slower = 0, big = 0, big_under_80 = 0, big_under_80_near_ref = 0, mismatches = 0;
};

void run_case(CudaPlugin& plugin, const BenchFatbin& fatbin, const OpCase& c, const Peak& peak,
              const cudaDeviceProp& prop, Totals& totals) {
  const CaseInputs in = case_inputs(c, size_t(prop.l2CacheSize));
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
  const StreamReference ref =
      stream_reference(fatbin, c.op, sets, outputs, prop.multiProcessorCount, prop.major >= 9);
  std::vector<std::function<void(int)>> runners = {omnirt, aten};
  runners.insert(runners.end(), ref.variants.begin(), ref.variants.end());
  const std::vector<double> medians = time_in_turns(runners);
  const double ours = medians[0], theirs = medians[1];
  const double ref_seconds = *std::min_element(medians.begin() + 2, medians.end());

  const std::string wrong_references = references_not_moving_their_bytes(ref, sets, outputs[0]);
  // OmniRT's output of set 0 (the references wrote over it) against ATen's result on set 0.
  omnirt(0);
  aten(0);
  torch::cuda::synchronize();
  const double tol = op_tolerance(c.dtype);
  const at::Tensor got = outputs[0].to(torch::kFloat), want = aten_result.to(torch::kFloat);
  const bool matches = status == OMNIRT_STATUS_OK && torch::allclose(got, want, tol, tol);
  const bool ok = matches && wrong_references.empty();
  const std::string check = status != OMNIRT_STATUS_OK ? "FAILED: " + last_error()
                            : !matches ? "MISMATCH: max abs error " +
                                             std::to_string((got - want).abs().max().item<float>())
                            : ok       ? "ok"
                                       : "REFERENCE WROTE OTHER BYTES: " + wrong_references;

  const double mib = double(bytes) / (1 << 20);
  const double gbs = double(bytes) / ours / 1e9, aten_gbs = double(bytes) / theirs / 1e9;
  auto of_peak = [&](double gb) { return peak.bytes_per_second > 0 ? 100 * gb * 1e9 / peak.bytes_per_second : 0; };
  const std::string shape = shape_text(c.shape);
  const double ref_gbs = double(ref.bytes) / ref_seconds / 1e9, of_ref = gbs / ref_gbs;
  std::printf("%-10s %-4s %-11s %-15s %7.1f %9.1f %9.1f %6.2f %7.0f %5.1f %7.0f %5.1f %7.1f %5.1f %6.2f  %s\n",
              c.op.c_str(), dtype_name(c.dtype), shape.c_str(), c.shape_class.c_str(), mib,
              ours * 1e6, theirs * 1e6, theirs / ours, gbs, of_peak(gbs), aten_gbs,
              of_peak(aten_gbs), ref_seconds * 1e6, of_peak(ref_gbs), of_ref, check.c_str());
  std::fflush(stdout);
  ++totals.cases;
  if (ours > theirs) ++totals.slower;
  if (!ok) ++totals.mismatches;
  // The bandwidth goal is for shapes of >= 64 MiB.
  if (mib >= 64) {
    ++totals.big;
    if (of_peak(gbs) < 80) {
      ++totals.big_under_80;
      if (of_ref >= kNearReference) ++totals.big_under_80_near_ref;
    }
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
    std::printf("# us: median per call over %d rounds taking turns; x: ATen us / OmniRT us (>= 1: OmniRT as "
                "fast or faster); GB/s: bytes read + written per call / time; %%pk: of peak; ref: the "
                "fastest streaming reference moving the same bytes (stream_kernels.cuh), of_ref: OmniRT's "
                "GB/s / the reference's\n",
                kRounds);
    std::printf("%-10s %-4s %-11s %-15s %7s %9s %9s %6s %7s %5s %7s %5s %7s %5s %6s  %s\n", "op", "type",
                "shape", "class", "MiB", "omnirt_us", "aten_us", "x", "GB/s", "%pk", "aten", "%pk", "ref_us",
                "%pk", "of_ref", "check");
    const BenchFatbin fatbin;
    Totals totals;
    for (const OpCase& c : op_cases()) {
      const std::string line = c.op + " " + dtype_name(c.dtype) + " " + c.shape_class;
      if (line.find(filter) == std::string::npos) continue;
      run_case(plugin, fatbin, c, peak, prop, totals);
    }
    std::printf("# %d cases: %d slower than ATen; %d of %d cases of >= 64 MiB under 80%% of peak (%d of them "
                "at >= %.2f of their streaming reference); %d results not matching ATen (or, for a reference, "
                "the bytes it moves)\n",
                totals.cases, totals.slower, totals.big_under_80, totals.big, totals.big_under_80_near_ref,
                kNearReference, totals.mismatches);
    return totals.mismatches == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("cuda_kernel_bench: %s\n", e.what());
    return 1;
  }
}
