// The cpu TorchScript engine against libtorch itself, in one run, on resnet18
// (1x3x224x224) and an MLP (1x256), batch 1, one libtorch thread count for
// all:
//   libtorch_eager     torch::jit::load + eval, forward      (libtorch directly)
//   libtorch_compiled  + freeze + optimize_for_inference     (libtorch directly)
//   plugin_eager       the cpu plugin's module_load(EAGER) + executable_run
//   plugin_compiled    the cpu plugin's module_load(COMPILE) + executable_run
// and a closing table: each path's compile speedup, and the plugin's overhead
// over libtorch on the same tier. A third model, `tiny` (x + 1 on one float),
// shows the plugin's fixed cost per call in absolute time.
//
//   omnirt_engine_bench MODELS_DIR [--threads=N] [--benchmark_...]
//
// MODELS_DIR holds resnet18.pt and mlp.pt from examples/models/make_models.py.
#include <ATen/DLConvertor.h>
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>
#include <c10/core/InferenceMode.h>
#include <dlfcn.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "omnirt/backend.h"
#include "torch_dl.h"  // tests/engine

namespace {

using omnirt::engine_testing::dl;

thread_local std::string plugin_error;

omnirt_status record_error(omnirt_status status, int64_t, const char* message) {
  plugin_error = message != nullptr ? message : "";
  return status;
}

void print_log(int32_t, const char* backend, const char* message) {
  std::fprintf(stderr, "[%s] %s\n", backend, message);
}

void check(omnirt_status status, const char* what) {
  if (status != OMNIRT_STATUS_OK) {
    throw std::runtime_error(std::string(what) + ": status " + std::to_string(status) + ": " +
                             plugin_error);
  }
}

// The cpu plugin loaded as a host loads it, with option threads=N.
class CpuPlugin {
 public:
  explicit CpuPlugin(int threads) {
    handle_ = dlopen(OMNIRT_BENCH_CPU_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) throw std::runtime_error(dlerror());
    auto entry = reinterpret_cast<omnirt_backend_entry_fn>(dlsym(handle_, OMNIRT_BACKEND_ENTRY_SYMBOL));
    static const omnirt_host_services services = {sizeof services, OMNIRT_ABI_VERSION,
                                                  &record_error, &print_log};
    const omnirt_backend_entry_args args = {sizeof args, OMNIRT_ABI_VERSION, OMNIRT_ABI_VERSION,
                                            &services};
    v_ = entry != nullptr ? entry(&args) : nullptr;
    if (v_ == nullptr) throw std::runtime_error("the cpu plugin refused the entry: " + plugin_error);
    const std::string value = std::to_string(threads);
    const char* key = "threads";
    const char* val = value.c_str();
    const omnirt_backend_create_args create = {sizeof create, &key, &val, 1};
    check(v_->create(&create, &s_), "create");
  }
  ~CpuPlugin() {
    v_->destroy(s_);
    dlclose(handle_);
  }
  CpuPlugin(const CpuPlugin&) = delete;
  CpuPlugin& operator=(const CpuPlugin&) = delete;

  omnirt_executable* load(const std::string& path, int32_t tier) const {
    omnirt_module_source source{};
    source.struct_size = sizeof source;
    source.format = "torchscript";
    source.path = path.c_str();
    omnirt_executable* exe = nullptr;
    check(v_->module_load(s_, 0, &source, tier, nullptr, &exe), "module_load");
    return exe;
  }
  // One forward with the output released, as a caller would. Completed work:
  // the cpu plugin runs a module on the caller's thread once the stream's
  // earlier work is done, so executable_run returns with the run complete
  // (plugins/cpu/README.md), as libtorch's CPU forward does.
  void run(omnirt_executable* exe, const DLTensor& input) const {
    DLManagedTensor* out[4];
    size_t count = 0;
    check(v_->executable_run(s_, exe, &input, 1, nullptr, out, 4, &count), "executable_run");
    for (size_t i = 0; i < count; ++i) out[i]->deleter(out[i]);
  }
  void destroy(omnirt_executable* exe) const { v_->executable_destroy(s_, exe); }

 private:
  void* handle_ = nullptr;
  const omnirt_backend_vtable* v_ = nullptr;
  omnirt_backend_state* s_ = nullptr;
};

// Early runs of a TorchScript module are profiled and specialized; the
// benchmarks measure the steady state after them.
constexpr int kWarmupRuns = 5;

struct Model {
  const char* name;
  std::vector<int64_t> input_shape;
  benchmark::TimeUnit unit;
};

void register_model(const Model& model, const std::string& dir, const CpuPlugin& plugin) {
  const std::string path = dir + "/" + model.name + ".pt";
  auto input = std::make_shared<at::Tensor>(at::randn(model.input_shape));

  // The plugin first: its first module_load sets libtorch's threads.
  for (const auto& [tier, level] : {std::pair{"eager", OMNIRT_TIER_EAGER},
                                    std::pair{"compiled", OMNIRT_TIER_COMPILE}}) {
    std::shared_ptr<omnirt_executable> exe(plugin.load(path, level),
                                           [&plugin](omnirt_executable* e) { plugin.destroy(e); });
    const DLTensor in = dl(*input);
    for (int i = 0; i < kWarmupRuns; ++i) plugin.run(exe.get(), in);
    auto body = [&plugin, exe, input, in](benchmark::State& state) {
      for (auto _ : state) plugin.run(exe.get(), in);
    };
    benchmark::RegisterBenchmark((std::string(model.name) + "/plugin_" + tier).c_str(), body)
        ->Unit(model.unit)
        ->UseRealTime();
  }

  auto eager = std::make_shared<torch::jit::Module>(torch::jit::load(path));
  eager->eval();
  torch::jit::Module frozen = torch::jit::freeze(*eager);
  auto compiled = std::make_shared<torch::jit::Module>(torch::jit::optimize_for_inference(frozen));
  for (const auto& [tier, module] : {std::pair{"eager", eager}, std::pair{"compiled", compiled}}) {
    auto body = [module, input](benchmark::State& state) {
      for (auto _ : state) {
        c10::InferenceMode inference;
        benchmark::DoNotOptimize(module->forward({*input}));
      }
    };
    for (int i = 0; i < kWarmupRuns; ++i) {
      c10::InferenceMode inference;
      module->forward({*input});
    }
    benchmark::RegisterBenchmark((std::string(model.name) + "/libtorch_" + tier).c_str(), body)
        ->Unit(model.unit)
        ->UseRealTime();
  }
}

// Writes tiny.pt (forward: x + 1) to a temporary folder; returns the folder.
std::string write_tiny_model() {
  const std::string dir = std::filesystem::temp_directory_path() / "omnirt_engine_bench";
  std::filesystem::create_directories(dir);
  torch::jit::Module m("Tiny");
  m.register_attribute("training", c10::BoolType::get(), true);
  m.define(R"(
    def forward(self, x):
        return x + 1
  )");
  m.save(dir + "/tiny.pt");
  return dir;
}

// Prints the usual console output, keeps each benchmark's times (the median
// when repeated) and ends with the ratios this benchmark exists for, from
// wall time and from the calling thread's CPU time. On a loaded machine the
// CPU time is the steadier figure; with threads > 1 it counts only the
// calling thread's share of the work.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const bool single = run.run_type == Run::RT_Iteration && run.repetitions <= 1;
      if (single || run.aggregate_name == "median") {
        times_[run.run_name.function_name] = {run.GetAdjustedRealTime(), run.GetAdjustedCPUTime()};
      }
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\n%-16s %22s %20s %25s %22s\n", "model (time)", "libtorch compile gain",
                "plugin compile gain", "plugin overhead compiled", "plugin overhead eager");
    for (const char* model : {"resnet18", "mlp", "tiny"}) {
      for (const bool cpu : {false, true}) {
        auto t = [&](const char* variant) {
          auto it = times_.find(std::string(model) + "/" + variant);
          return it == times_.end() ? 0.0 : cpu ? it->second.second : it->second.first;
        };
        const double le = t("libtorch_eager"), lc = t("libtorch_compiled");
        const double pe = t("plugin_eager"), pc = t("plugin_compiled");
        if (le == 0 || lc == 0 || pe == 0 || pc == 0) continue;  // filtered out
        const std::string label = std::string(model) + (cpu ? " (cpu)" : " (wall)");
        std::printf("%-16s %21.3fx %19.3fx %+24.2f%% %+21.2f%%\n", label.c_str(), le / lc,
                    pe / pc, (pc / lc - 1) * 100, (pe / le - 1) * 100);
      }
    }
  }

 private:
  std::map<std::string, std::pair<double, double>> times_;  // wall, cpu
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--threads=", 10) == 0) {
      threads = std::atoi(argv[i] + 10);
    } else {
      dir = argv[i];
    }
  }
  if (dir.empty() || threads < 1) {
    std::fprintf(stderr,
                 "usage: %s MODELS_DIR [--threads=N] [--benchmark_...]\n"
                 "MODELS_DIR: from /usr/bin/python3 examples/models/make_models.py MODELS_DIR\n",
                 argv[0]);
    return 2;
  }
  try {
    // The plugin sets libtorch's threads for the process, so the direct
    // libtorch benchmarks run with the same count.
    CpuPlugin plugin(threads);
    register_model({"resnet18", {1, 3, 224, 224}, benchmark::kMillisecond}, dir, plugin);
    register_model({"mlp", {1, 256}, benchmark::kMicrosecond}, dir, plugin);
    register_model({"tiny", {1}, benchmark::kMicrosecond}, write_tiny_model(), plugin);
    std::printf("libtorch threads: %d (intra-op), %d (inter-op)\n", at::get_num_threads(),
                at::get_num_interop_threads());
    SummaryReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::ClearRegisteredBenchmarks();  // their executables go before the plugin
  } catch (const std::exception& e) {
    std::fprintf(stderr, "omnirt_engine_bench: %s\n", e.what());
    return 1;
  }
  benchmark::Shutdown();
  return 0;
}
