// omnirt-run: wraps a model (TorchScript, an AOTInductor package, or another
// format the backend lists) on a backend through the host, runs it on seeded
// random (or .npy) inputs, and prints latency and the run report. Every run
// is given the report, so the host times it to completion; the latency
// printed is read back from the report (run_times.h).
#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_io.h"
#include "inputs.h"
#include "latency.h"
#include "module_format.h"
#include "npy.h"
#include "omnirt/host.h"
#include "output_files.h"
#include "progress.h"
#include "run_times.h"
#include "summary.h"

namespace fs = std::filesystem;
using namespace omnirt::run;

namespace {

// Exit codes; also in --help and tools/run/README.md.
enum Exit : int {
  kOk = 0,
  kModelFailed = 1,  // wrap_module or a run failed (the report says why)
  kUsage = 2,        // bad command line or input spec
  kNoBackend = 3,    // host could not be made, or the backend is unknown/unavailable
  kIoError = 4,      // an input file could not be read or an output not written
};

constexpr const char* kExitCodes =
    "Exit codes: 0 success; 1 the model failed to wrap or run (see the report); "
    "2 bad command line or input spec; 3 no host or no usable backend; "
    "4 reading an input file or writing outputs failed.";

// One input as the command line gave it: a random SHAPE:DTYPE or a .npy file.
struct InputArg {
  bool from_file = false;
  std::string text;
};

struct Options {
  std::string model;
  std::string format = "auto";
  std::string backend = "auto";
  std::vector<std::string> inputs;
  std::vector<std::string> input_files;
  std::vector<InputArg> ordered_inputs;  // both of the above, in command-line order
  uint64_t seed = 0;
  size_t iters = 10;
  size_t warmup = 3;
  std::string save_dir;
  bool json = false;
  bool no_compile = false;
  std::string tag;
  std::vector<std::string> plugin_dirs;
  std::string config;
  int32_t device = 0;
};

// Failures that map to an exit code.
struct Failure : std::runtime_error {
  Failure(Exit c, const std::string& what) : std::runtime_error(what), code(c) {}
  Exit code;
};

template <class F>
auto or_exit(Exit code, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Failure&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;  // main says what ran out
  } catch (const std::exception& e) {
    throw Failure(code, e.what());
  }
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

struct HostDeleter {
  void operator()(omnirt_host* h) const { omnirt_host_destroy(h); }
};
struct ReportDeleter {
  void operator()(omnirt_report* r) const { omnirt_report_destroy(r); }
};
struct ModuleDeleter {
  void operator()(omnirt_module* m) const { omnirt_module_destroy(m); }
};

// Outputs of one run, released together.
class Outputs {
 public:
  ~Outputs() { release(); }
  void release() {
    for (size_t i = 0; i < count; ++i) slots[i]->deleter(slots[i]);
    count = 0;
  }
  std::vector<DLManagedTensor*> slots = std::vector<DLManagedTensor*>(16);
  size_t count = 0;
};

std::vector<HostTensor> make_inputs(const Options& o) {
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < o.ordered_inputs.size(); ++i) {
    const InputArg& arg = o.ordered_inputs[i];
    if (arg.from_file) {
      inputs.push_back(or_exit(kIoError, [&] { return read_npy(arg.text); }));
      continue;
    }
    HostTensor t = or_exit(kUsage, [&] { return parse_input_spec(arg.text); });
    fill_random(t, o.seed + i);  // a different stream per input
    inputs.push_back(std::move(t));
  }
  return inputs;
}

// --input and --input-file values in the order they were given.
std::vector<InputArg> in_command_line_order(const CLI::App& app, const CLI::Option* spec_option,
                                            const CLI::Option* file_option, const Options& o) {
  std::vector<InputArg> ordered;
  size_t spec = 0, file = 0;
  for (const CLI::Option* option : app.parse_order()) {
    if (option == spec_option && spec < o.inputs.size()) ordered.push_back({false, o.inputs[spec++]});
    if (option == file_option && file < o.input_files.size()) {
      ordered.push_back({true, o.input_files[file++]});
    }
  }
  return ordered;
}

std::string report_json(omnirt_report* report) {
  char* text = nullptr;
  check(omnirt_report_to_json(report, &text), "render the run report");
  std::string copy = text;
  omnirt_string_free(text);
  return copy;
}

nlohmann::ordered_json spread_json(const std::vector<double>& samples) {
  const Latency l = summarize(samples);
  return {{"iterations", samples.size()}, {"median", l.median_ms}, {"p90", l.p90_ms},
          {"mean", l.mean_ms},           {"min", l.min_ms},       {"max", l.max_ms}};
}

// Prints the report and the figures of its last `timed` runs.
void print(const Options& o, omnirt_report* report, size_t timed) {
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(report_json(report));
  const RunTimes times = timed_runs(doc, timed);
  if (o.json) {
    nlohmann::ordered_json latency = spread_json(times.wall_ms);
    latency["warmup"] = o.warmup;
    const nlohmann::ordered_json device =
        times.device_ms.empty() ? nlohmann::ordered_json(nullptr) : spread_json(times.device_ms);
    const nlohmann::ordered_json out = {
        {"latency_ms", latency}, {"device_ms", device}, {"report", doc}};
    std::cout << out.dump(2) << std::endl;
  } else {
    print_summary(std::cout, doc, times, SummaryContext{o.no_compile});
  }
}

void save_outputs(const Options& o, omnirt_backend* backend, const omnirt_module* module,
                  const Outputs& outputs) {
  std::vector<std::string> names;
  for (size_t i = 0; i < outputs.count; ++i) {
    const char* name = "";
    check(omnirt_module_output_name(module, outputs.slots[i], &name), "name an output");
    names.emplace_back(name);
  }
  const std::vector<std::string> files = output_file_names(names);
  or_exit(kIoError, [&] {
    fs::create_directories(o.save_dir);
    for (size_t i = 0; i < outputs.count; ++i) {
      const fs::path path = fs::path(o.save_dir) / files[i];
      write_npy(path.string(), to_host(backend, outputs.slots[i]->dl_tensor));
      if (!o.json) std::cout << "saved    " << path.string() << "\n";
    }
  });
}

int run(const Options& o) {
  std::vector<const char*> dirs;
  for (const auto& d : o.plugin_dirs) dirs.push_back(d.c_str());
  omnirt_host_options host_options{};
  host_options.struct_size = sizeof host_options;
  host_options.config_path = o.config.empty() ? nullptr : o.config.c_str();
  host_options.plugin_paths = dirs.data();
  host_options.num_plugin_paths = dirs.size();
  omnirt_host* raw_host = nullptr;
  or_exit(kNoBackend,
          [&] { check(omnirt_host_create(&host_options, &raw_host), "create the host"); });
  std::unique_ptr<omnirt_host, HostDeleter> host(raw_host);
  omnirt_backend* backend = nullptr;
  or_exit(kNoBackend, [&] {
    check(omnirt_host_get_backend(host.get(), o.backend.c_str(), &backend),
          ("select backend '" + o.backend + "'").c_str());
  });

  omnirt_report* raw_report = nullptr;
  check(omnirt_report_create(backend, nullptr, &raw_report), "create the run report");
  std::unique_ptr<omnirt_report, ReportDeleter> report(raw_report);

  auto start = std::chrono::steady_clock::now();
  std::vector<HostTensor> host_inputs = make_inputs(o);
  DeviceInputs inputs(backend, o.device, host_inputs);
  omnirt_report_add_stage(report.get(), "prepare_inputs", ms_since(start));

  const std::string tag = o.tag.empty() ? fs::path(o.model).stem().string() : o.tag;
  const std::string format = o.format != "auto" ? o.format : module_format_of(o.model);
  omnirt_module_source source{};
  source.struct_size = sizeof source;
  source.format = format.c_str();
  source.path = o.model.c_str();
  omnirt_wrap_options wrap{};
  wrap.struct_size = sizeof wrap;
  wrap.device = o.device;
  wrap.flags = o.no_compile ? OMNIRT_WRAP_DISABLE_COMPILE : 0;
  omnirt_module* raw_module = nullptr;
  if (omnirt_wrap_module(backend, &source, tag.c_str(), &wrap, report.get(), &raw_module) !=
      OMNIRT_STATUS_OK) {
    print(o, report.get(), 0);
    return kModelFailed;
  }
  std::unique_ptr<omnirt_module, ModuleDeleter> module(raw_module);

  Outputs outputs;
  size_t timed = 0;
  Progress progress(o.warmup + o.iters);
  for (size_t i = 0; i < o.warmup + o.iters; ++i) {
    outputs.release();
    start = std::chrono::steady_clock::now();
    omnirt_status status =
        omnirt_module_run(module.get(), inputs.tensors().data(), inputs.tensors().size(), nullptr,
                          outputs.slots.data(), outputs.slots.size(), &outputs.count, report.get());
    if (status == OMNIRT_STATUS_OUT_OF_RANGE && outputs.count > outputs.slots.size()) {
      outputs.slots.resize(outputs.count);  // more outputs than we guessed: ask again
      --i;
      continue;
    }
    const double ms = ms_since(start);
    if (status != OMNIRT_STATUS_OK) {
      progress.finish();
      outputs.count = 0;
      print(o, report.get(), timed);
      return kModelFailed;
    }
    if (i >= o.warmup) ++timed;
    progress.update(i + 1, ms);
  }
  progress.finish();
  if (!o.save_dir.empty()) save_outputs(o, backend, module.get(), outputs);
  print(o, report.get(), timed);
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "omnirt-run: wrap a model (TorchScript or an AOTInductor package) on an OmniRT backend, "
      "run it and print latency and the run report."};
  app.footer(kExitCodes);
  Options o;
  app.add_option("model", o.model,
                 "Model file: TorchScript (.pt), an AOTInductor package (.pt2), or of --format")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--format", o.format,
                 "Module format tag of MODEL as the backend lists it; auto: aoti or torchscript, "
                 "told from the file's entries")
      ->capture_default_str();
  app.add_option("--backend", o.backend, "Backend name, or auto (the first available)")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // Repeatable options take one value each, so they never swallow MODEL.
  // Inputs are passed in the order --input and --input-file appear.
  const CLI::Option* spec_option =
      app.add_option("--input", o.inputs,
                     "Random input SHAPE:DTYPE, e.g. 1x3x224x224:f32 (repeatable)")
          ->allow_extra_args(false);
  const CLI::Option* file_option =
      app.add_option("--input-file", o.input_files,
                     "Input from a .npy file (repeatable; inputs keep the command line's order)")
          ->check(CLI::ExistingFile)
          ->allow_extra_args(false);
  app.add_option("--seed", o.seed, "Seed of the random inputs")->capture_default_str();
  app.add_option("--iters", o.iters, "Timed iterations")->capture_default_str();
  app.add_option("--warmup", o.warmup, "Untimed iterations first")->capture_default_str();
  app.add_option("--device", o.device, "Device index on the backend")->capture_default_str();
  app.add_option("--save-outputs", o.save_dir,
                 "Write the last run's outputs as DIR/output_<key>.npy (a dict output's key) "
                 "or DIR/output_<i>.npy");
  app.add_flag("--json", o.json, "Print latency and the full run report as one JSON document");
  app.add_flag("--no-compile", o.no_compile, "Skip the compile tier (eager or override only)");
  app.add_option("--tag", o.tag, "Module tag for policy and overrides (default: the file's stem)");
  app.add_option("--plugin-dir", o.plugin_dirs,
                 "Plugin file or directory searched first (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--config", o.config, "YAML configuration file")->check(CLI::ExistingFile);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kOk : kUsage;
  }
  o.ordered_inputs = in_command_line_order(app, spec_option, file_option, o);
  if (o.ordered_inputs.empty()) {
    std::cerr << "omnirt-run: give at least one --input or --input-file\n";
    return kUsage;
  }
  try {
    return run(o);
  } catch (const Failure& f) {
    std::cerr << "omnirt-run: " << f.what() << "\n";
    return f.code;
  } catch (const std::bad_alloc&) {
    std::cerr << "omnirt-run: out of host memory (inputs, outputs and the report live in host "
                 "memory; try smaller inputs)\n";
    return kModelFailed;
  } catch (const std::exception& e) {
    std::cerr << "omnirt-run: " << e.what() << "\n";
    return kModelFailed;
  }
}
