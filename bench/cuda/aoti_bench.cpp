// Benchmark (f): AOTInductor packages through OmniRT against the same package
// run by torch::inductor::AOTIModelPackageLoader directly, C++ on both sides,
// in one process. For each package:
//   loader        AOTIModelPackageLoader::run on the current stream
//   rt_eager      the cuda plugin's eager tier (executable_run, as the host calls it)
//   host_eager    the host API (omnirt_wrap_module with compile disabled, omnirt_module_run)
//   loader_graph  the loader (single-threaded) captured once in an at::cuda::CUDAGraph;
//                 input copied in, graph replayed: what the compile tier does, by hand
//   rt_compile    the plugin's compile tier (the package replayed through CUDA graphs)
//   host_compile  the host API, compile tier
// Latency of completed work: one run enqueued, then the stream synchronized,
// on the host clock. The variants take turns in each round (the first one
// rotates); printed are the medians and OmniRT's overhead over the loader
// (eager tiers) and over the hand-made graph (compile tiers). Goal: the .pt2
// path through OmniRT within 2% of the loader.
//
//   cuda_aoti_bench PACKAGE.pt2:SHAPE [...]   e.g. resnet50_b8.pt2:8x3x224x224
//   (float32 input of SHAPE; the packages of bench/cuda/aoti_goal.py fit)
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "module_runners.h"
#include "torch_helpers.h"

namespace {

using namespace omnirt::cuda_bench;
using Loader = torch::inductor::AOTIModelPackageLoader;

constexpr int kWarmupRuns = 20;
constexpr int kRounds = 300;

struct Variant {
  std::string name;
  std::function<void()> run;  // enqueues one run; no synchronization
  std::vector<double> ms;
};

std::vector<int64_t> parse_shape(const std::string& text) {
  std::vector<int64_t> shape;
  std::stringstream in(text);
  for (std::string d; std::getline(in, d, 'x');) shape.push_back(std::stoll(d));
  return shape;
}

void bench_package(const std::string& path, const std::vector<int64_t>& shape, CudaPlugin& plugin,
                   omnirt_host* host) {
  c10::InferenceMode inference;
  const at::Tensor x = torch::randn(shape, torch::TensorOptions().device(torch::kCUDA));
  const DLTensor in = omnirt::cuda_test::dl_view(x);
  Loader loader(path);
  // The hand-made compile tier: a single-threaded loader captured on a side stream.
  Loader single(path, "model", /*run_single_threaded=*/true);
  at::Tensor static_x = x.clone();
  at::cuda::CUDAGraph graph;
  {
    const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
    c10::cuda::CUDAStreamGuard guard(side);
    for (int i = 0; i < 3; ++i) single.run({static_x});
    graph.capture_begin();
    single.run({static_x});
    graph.capture_end();
    side.synchronize();
  }
  const omnirt_module_source source = {sizeof source, "aoti", nullptr, 0, path.c_str()};
  std::vector<Variant> variants = {
      {"loader", [&] { loader.run({x}); }, {}},
      {"rt_eager", plugin_runner(plugin, source, OMNIRT_TIER_EAGER, "bench", in), {}},
      {"host_eager", host_runner(host, source, OMNIRT_WRAP_DISABLE_COMPILE, "bench", in), {}},
      {"loader_graph", [&] { static_x.copy_(x, true); graph.replay(); }, {}},
      {"rt_compile", plugin_runner(plugin, source, OMNIRT_TIER_COMPILE, "bench", in), {}},
      {"host_compile", host_runner(host, source, 0, "bench", in), {}},
  };
  const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
  for (Variant& v : variants) {
    for (int i = 0; i < kWarmupRuns; ++i) v.run();
  }
  stream.synchronize();
  for (int round = 0; round < kRounds; ++round) {
    for (size_t k = 0; k < variants.size(); ++k) {
      Variant& v = variants[(size_t(round) + k) % variants.size()];
      const auto start = std::chrono::steady_clock::now();
      v.run();
      stream.synchronize();
      v.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
  }
  std::map<std::string, double> ms;
  std::printf("%s (input %s):\n", path.c_str(), c10::str(x.sizes()).c_str());
  for (const Variant& v : variants) {
    ms[v.name] = median(v.ms);
    std::printf("  %-13s %9.3f ms\n", v.name.c_str(), ms[v.name]);
  }
  auto overhead = [&](const char* a, const char* b) { return 100 * (ms[a] / ms[b] - 1); };
  std::printf("  OmniRT over the loader, eager:   plugin %+.2f%%, host %+.2f%% (goal: within 2%%)\n",
              overhead("rt_eager", "loader"), overhead("host_eager", "loader"));
  std::printf("  OmniRT over the hand-made graph: plugin %+.2f%%, host %+.2f%%\n",
              overhead("rt_compile", "loader_graph"), overhead("host_compile", "loader_graph"));
  std::printf("  compile tier vs the loader: %.2fx faster\n", ms["loader"] / ms["host_compile"]);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PACKAGE.pt2:SHAPE [...]\n", argv[0]);
    return 2;
  }
  if (!torch::cuda::is_available()) {
    std::printf("cuda_aoti_bench: no CUDA device\n");
    return 0;
  }
  CudaPlugin plugin;
  const Host host = make_host();
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      const size_t colon = arg.rfind(':');
      if (colon == std::string::npos) throw std::invalid_argument("no :SHAPE in " + arg);
      bench_package(arg.substr(0, colon), parse_shape(arg.substr(colon + 1)), plugin, host.get());
    }
  } catch (const std::exception& e) {
    std::printf("cuda_aoti_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
