// Module runs through the host vs libtorch called directly, in one process
// and one run, on the models of examples/models/make_models.py:
//   Direct/<model>/{frozen,eager}   torch::jit::load (+ freeze +
//                                   optimize_for_inference), forward()
//   Host/<model>/{compile,eager}    omnirt_wrap_module + omnirt_module_run on
//                                   the cpu backend (same libtorch, same
//                                   threads: the engine shares this process's),
//                                   each run waited for to completion
//                                   (omnirt::CompletionTimer, as any backend's
//                                   must be; the cpu's are complete on return)
//   Discovery/omnirt_probe          omnirt-probe as a process, wall time, with
//                                   the engine installed beside the cpu plugin
//                                   (in-process host creation is
//                                   bench/host_creation_bench.cpp)
// After the runs it prints the ratios the design asks for: host overhead
// over direct (<= 2%), and the compile-over-eager speedup via the host next
// to libtorch's own.
//
//   omnirt_run_bench --models=DIR [--probe=PATH] [benchmark flags]
// (--probe defaults to the omnirt-probe of the same build.)
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>
#include <c10/core/InferenceMode.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <torch/script.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "omnirt/cpp/host.hpp"
#include "omnirt/host.h"

extern char** environ;

namespace {

struct Model {
  const char* name;
  std::vector<int64_t> shape;
};
const Model kModels[] = {{"resnet18", {1, 3, 224, 224}}, {"mlp", {1, 256}}};

std::string g_models_dir;
std::string g_probe = OMNIRT_RUN_BENCH_PROBE;

void check(omnirt_status s, const char* what) {
  if (s != OMNIRT_STATUS_OK) {
    throw std::runtime_error(std::string(what) + ": " + omnirt_last_error()->message);
  }
}

// One seeded input, shared by both variants so they compute the same thing.
at::Tensor input_for(const Model& m) {
  torch::manual_seed(0);
  return torch::randn(m.shape);
}

void direct(benchmark::State& state, const Model& m, bool frozen) {
  torch::jit::Module module = torch::jit::load(g_models_dir + "/" + m.name + ".pt");
  module.eval();
  if (frozen) {
    torch::jit::Module frozen_module = torch::jit::freeze(module);
    module = torch::jit::optimize_for_inference(frozen_module);
  }
  const std::vector<c10::IValue> args{input_for(m)};
  c10::InferenceMode inference;
  for (auto _ : state) benchmark::DoNotOptimize(module.forward(args));
}

// A host over the build tree's plugins, created once: the engine and its
// libtorch threads then live for the whole run, as in a server.
omnirt_backend* cpu_backend() {
  static omnirt_host* host = [] {
    omnirt_host* h = nullptr;
    check(omnirt_host_create(nullptr, &h), "create host");
    return h;
  }();
  omnirt_backend* backend = nullptr;
  check(omnirt_host_get_backend(host, "cpu", &backend), "select cpu");
  return backend;
}

void through_host(benchmark::State& state, const Model& m, bool compile) {
  omnirt_backend* cpu = cpu_backend();
  const std::string path = g_models_dir + "/" + m.name + ".pt";
  omnirt_module_source src{};
  src.struct_size = sizeof src;
  src.format = "torchscript";
  src.path = path.c_str();
  omnirt_wrap_options opt{};
  opt.struct_size = sizeof opt;
  opt.flags = compile ? 0 : OMNIRT_WRAP_DISABLE_COMPILE;
  omnirt_module* module = nullptr;
  check(omnirt_wrap_module(cpu, &src, m.name, &opt, nullptr, &module), "wrap");
  at::Tensor x = input_for(m);
  std::vector<int64_t> shape = m.shape;
  DLTensor in{};
  in.data = x.data_ptr();
  in.device = DLDevice{kDLCPU, 0};
  in.ndim = static_cast<int32_t>(shape.size());
  in.dtype = DLDataType{kDLFloat, 32, 1};
  in.shape = shape.data();
  DLManagedTensor* out[4];
  size_t n = 0;
  // Wall time is Google Benchmark's; the timer only waits for each run.
  omnirt::CompletionTimer completion;
  check(completion.init(cpu, 0, /*device_time=*/false), "completion timer");
  omnirt::CompletedTime done;
  for (auto _ : state) {
    check(completion.begin(), "begin");
    check(omnirt_module_run(module, &in, 1, nullptr, out, 4, &n, nullptr), "run");
    check(completion.end(&done), "wait for the run");
    for (size_t i = 0; i < n; ++i) out[i]->deleter(out[i]);
  }
  omnirt_module_destroy(module);
}

void probe_process(benchmark::State& state) {
  if (g_probe.empty()) return state.SkipWithError("no --probe=PATH given");
  char* argv[] = {g_probe.data(), nullptr};
  for (auto _ : state) {
    pid_t pid = 0;
    posix_spawn_file_actions_t quiet;
    posix_spawn_file_actions_init(&quiet);
    posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
    if (posix_spawn(&pid, g_probe.c_str(), &quiet, nullptr, argv, environ) != 0) {
      posix_spawn_file_actions_destroy(&quiet);
      return state.SkipWithError("cannot start omnirt-probe");
    }
    int status = 0;
    waitpid(pid, &status, 0);
    posix_spawn_file_actions_destroy(&quiet);
  }
}

// Collects real times per benchmark name to print the ratios at the end.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      // With repetitions, keep the median aggregate; without, the one run.
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      ms_[r.run_name.function_name] = r.GetAdjustedRealTime();  // every benchmark is in ms
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\n%-10s %12s %12s %10s %16s %16s\n", "model", "direct ms", "host ms", "overhead",
                "speedup direct", "speedup host");
    for (const Model& m : kModels) {
      const std::string p = std::string("/") + m.name + "/";
      const double df = ms_["Direct" + p + "frozen"], de = ms_["Direct" + p + "eager"];
      const double hc = ms_["Host" + p + "compile"], he = ms_["Host" + p + "eager"];
      if (df <= 0 || hc <= 0) continue;
      std::printf("%-10s %12.3f %12.3f %9.2f%% %15.2fx %15.2fx\n", m.name, df, hc,
                  (hc / df - 1) * 100, de / df, he / hc);
    }
  }

 private:
  std::map<std::string, double> ms_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--models=", 9) == 0) g_models_dir = argv[i] + 9;
    if (std::strncmp(argv[i], "--probe=", 8) == 0) g_probe = argv[i] + 8;
  }
  if (g_models_dir.empty()) {
    std::fprintf(stderr,
                 "usage: %s --models=DIR [--probe=PATH] [benchmark flags]\n"
                 "  (make DIR with /usr/bin/python3 examples/models/make_models.py DIR)\n",
                 argv[0]);
    return 2;
  }
  // The engine configures the same count (the machine's cores) when it loads.
  at::set_num_threads(static_cast<int>(std::thread::hardware_concurrency()));
  for (const Model& m : kModels) {
    const std::string p = std::string("/") + m.name + "/";
    benchmark::RegisterBenchmark(("Direct" + p + "frozen").c_str(), direct, m, true)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("Host" + p + "compile").c_str(), through_host, m, true)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("Direct" + p + "eager").c_str(), direct, m, false)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("Host" + p + "eager").c_str(), through_host, m, false)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("Discovery/omnirt_probe", probe_process)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  RatioReporter reporter;
  try {
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "omnirt_run_bench: %s\n", e.what());
    return 1;
  }
  benchmark::Shutdown();
  return 0;
}
