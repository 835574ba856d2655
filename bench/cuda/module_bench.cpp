// Benchmarks (b) and (c) on a launch-bound model: 4 linear layers, 256 wide,
// batch 1, from the same TorchScript bytes, run six ways:
//   lt_eager     the module called directly through libtorch
//   lt_graph     frozen + optimize_for_inference, captured once in an
//                at::cuda::CUDAGraph; input copied in, graph replayed
//   rt_eager     the cuda plugin's eager tier (executable_run, as the host calls it)
//   rt_compile   the cuda plugin's compile tier (CUDA graphs)
//   host_eager   the host API: omnirt_wrap_module (compile disabled), omnirt_module_run
//   host_compile the host API, compile tier selected by the fallback chain
// The variants take turns within each iteration (the first one rotates), so
// clock and load drift hit them alike; each counter is the median over all
// iterations of microseconds per run. The argument is how many runs are
// enqueued per synchronization: 1 is latency (GPU time included), 16 the
// launch-bound throughput. Every variant enqueues on the legacy default
// stream (libtorch's current stream here; NULL for the plugin and the host),
// and each sample ends with that stream's synchronize: completed work.
// (b) rt_speedup = rt_eager / rt_compile next to lt_speedup = lt_eager /
//     lt_graph; kept = rt_speedup / lt_speedup.
// (c) rt_overhead = rt_eager / lt_eager - 1 (and compile against lt_graph;
//     host_* the same through the host API).
#include <ATen/cuda/CUDAGraph.h>
#include <benchmark/benchmark.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>
#include <torch/script.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_plugin.h"
#include "torch_helpers.h"
#ifdef OMNIRT_CUDA_BENCH_HOST
#include "omnirt/host.h"
#endif

namespace {

using omnirt::cuda_test::CudaPlugin;

constexpr int kWarmupRuns = 50;  // also past TorchScript's profiling runs

struct Variant {
  std::string name;
  std::function<void()> run;  // enqueues one forward; no synchronization
  std::vector<double> us;     // per-run microseconds, one sample per iteration
};

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

torch::jit::Module load(const std::string& bytes, bool frozen) {
  std::istringstream in(bytes);
  torch::jit::Module m = torch::jit::load(in, torch::kCUDA);
  m.eval();
  if (!frozen) return m;
  m = torch::jit::freeze(m);
  return torch::jit::optimize_for_inference(m);
}

// One executable of the plugin, run through its vtable.
std::function<void()> plugin_runner(CudaPlugin& plugin, const std::string& bytes, int32_t tier,
                                    const DLTensor& in) {
  const omnirt_module_source source = {sizeof source, "torchscript", bytes.data(), bytes.size(), nullptr};
  omnirt_executable* exe = nullptr;
  if (plugin.vt()->module_load(plugin.state(), 0, &source, tier, "mlp", &exe) != OMNIRT_STATUS_OK) {
    throw std::runtime_error(omnirt::cuda_test::last_error());
  }
  std::shared_ptr<omnirt_executable> owned(
      exe, [&plugin](omnirt_executable* e) { plugin.vt()->executable_destroy(plugin.state(), e); });
  return [&plugin, owned, &in] {
    DLManagedTensor* out = nullptr;
    size_t count = 0;
    plugin.vt()->executable_run(plugin.state(), owned.get(), &in, 1, nullptr, &out, 1, &count);
    out->deleter(out);  // stream order keeps the memory until the run is done
  };
}

#ifdef OMNIRT_CUDA_BENCH_HOST
using Host = std::unique_ptr<omnirt_host, void (*)(omnirt_host*)>;

Host make_host() {
  const char* paths[] = {OMNIRT_CUDA_PLUGIN_PATH};
  const omnirt_host_options options{sizeof options, nullptr, paths, 1,
                                    OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR};
  omnirt_host* host = nullptr;
  omnirt_host_create(&options, &host);
  return Host(host, &omnirt_host_destroy);
}

// The same model through the host API, as an embedder runs it.
std::function<void()> host_runner(omnirt_host* host, const std::string& bytes, uint32_t flags,
                                  const DLTensor& in) {
  omnirt_backend* cuda = nullptr;
  omnirt_module* module = nullptr;
  const omnirt_module_source source = {sizeof source, "torchscript", bytes.data(), bytes.size(), nullptr};
  omnirt_wrap_options wrap{};
  wrap.struct_size = sizeof wrap;
  wrap.flags = flags;
  if (host == nullptr || omnirt_host_get_backend(host, "cuda", &cuda) != OMNIRT_STATUS_OK ||
      omnirt_wrap_module(cuda, &source, "mlp", &wrap, nullptr, &module) != OMNIRT_STATUS_OK) {
    throw std::runtime_error(omnirt_last_error()->message);
  }
  std::shared_ptr<omnirt_module> owned(module, &omnirt_module_destroy);
  return [owned, &in] {
    DLManagedTensor* out = nullptr;
    size_t count = 0;
    omnirt_module_run(owned.get(), &in, 1, nullptr, &out, 1, &count, nullptr);
    out->deleter(out);
  };
}
#endif

void Mlp256Batch1(benchmark::State& state) {
  if (!torch::cuda::is_available()) {
    state.SkipWithError("no CUDA device");
    return;
  }
  const std::string bytes = omnirt::cuda_test::mlp_torchscript(256, 4);
  c10::InferenceMode inference;
  const at::Tensor x = torch::randn({1, 256}, torch::TensorOptions().device(torch::kCUDA));
  const DLTensor in = omnirt::cuda_test::dl_view(x);

  torch::jit::Module eager = load(bytes, false);
  torch::jit::Module frozen = load(bytes, true);
  at::Tensor static_x = x.clone();
  at::cuda::CUDAGraph graph;
  {
    const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
    c10::cuda::CUDAStreamGuard guard(side);
    for (int i = 0; i < 3; ++i) frozen.forward({static_x});
    graph.capture_begin();
    frozen.forward({static_x});
    graph.capture_end();
    side.synchronize();
  }
  CudaPlugin plugin;
#ifdef OMNIRT_CUDA_BENCH_HOST
  const Host host = make_host();
#endif
  std::vector<Variant> variants;  // destroyed first: its executables belong to the above
  try {
    variants = {
        {"lt_eager", [&] { eager.forward({x}); }, {}},
        {"lt_graph", [&] { static_x.copy_(x, true); graph.replay(); }, {}},
        {"rt_eager", plugin_runner(plugin, bytes, OMNIRT_TIER_EAGER, in), {}},
        {"rt_compile", plugin_runner(plugin, bytes, OMNIRT_TIER_COMPILE, in), {}},
#ifdef OMNIRT_CUDA_BENCH_HOST
        {"host_eager", host_runner(host.get(), bytes, OMNIRT_WRAP_DISABLE_COMPILE, in), {}},
        {"host_compile", host_runner(host.get(), bytes, 0, in), {}},
#endif
    };
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
  for (Variant& v : variants) {
    for (int i = 0; i < kWarmupRuns; ++i) v.run();
  }
  stream.synchronize();

  const int64_t runs = state.range(0);
  size_t turn = 0;
  for (auto _ : state) {
    for (size_t k = 0; k < variants.size(); ++k) {
      Variant& v = variants[(turn + k) % variants.size()];
      const auto start = std::chrono::steady_clock::now();
      for (int64_t i = 0; i < runs; ++i) v.run();
      stream.synchronize();
      const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
      v.us.push_back(took.count() / double(runs));
    }
    ++turn;
  }
  std::map<std::string, double> us;
  for (const Variant& v : variants) {
    us[v.name] = median(v.us);
    state.counters[v.name + "_us"] = us[v.name];
  }
  const double lt_speedup = us["lt_eager"] / us["lt_graph"];
  const double rt_speedup = us["rt_eager"] / us["rt_compile"];
  state.counters["lt_speedup"] = lt_speedup;
  state.counters["rt_speedup"] = rt_speedup;
  state.counters["kept_pct"] = 100 * rt_speedup / lt_speedup;
  state.counters["rt_eager_overhead_pct"] = 100 * (us["rt_eager"] / us["lt_eager"] - 1);
  state.counters["rt_compile_overhead_pct"] = 100 * (us["rt_compile"] / us["lt_graph"] - 1);
#ifdef OMNIRT_CUDA_BENCH_HOST
  state.counters["host_eager_overhead_pct"] = 100 * (us["host_eager"] / us["lt_eager"] - 1);
  state.counters["host_compile_overhead_pct"] = 100 * (us["host_compile"] / us["lt_graph"] - 1);
#endif
}

BENCHMARK(Mlp256Batch1)->ArgName("runs_per_sync")->Arg(1)->Iterations(3000)->Unit(benchmark::kMillisecond);
BENCHMARK(Mlp256Batch1)->ArgName("runs_per_sync")->Arg(16)->Iterations(300)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
