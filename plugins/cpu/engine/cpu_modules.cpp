#include "cpu_modules.h"

#include <charconv>
#include <cstring>
#include <iterator>
#include <thread>

namespace omnirt::cpu {
namespace {

constexpr const char* kFormat = "torchscript";
const char* const kFormats[] = {kFormat};
// Why the cpu engine cannot take format "aoti" (set by engine/CMakeLists.txt).
const omnirt_module_format_unavailable kUnavailable[] = {{"aoti", OMNIRT_CPU_AOTI_UNAVAILABLE}};
constexpr int32_t kMaxThreads = 4096;
constexpr size_t kMessageCapacity = 2048;

int32_t threads_option(const plugin::Options& options) {
  const std::string text = options.get("threads");
  if (text.empty()) {
    const unsigned cores = std::thread::hardware_concurrency();
    return cores > 0 ? static_cast<int32_t>(cores) : 1;
  }
  int32_t threads = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), threads);
  if (error != std::errc() || end != text.data() + text.size() || threads < 1 ||
      threads > kMaxThreads) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, "cpu: option threads must be an integer in 1.." +
                                                     std::to_string(kMaxThreads) + ", got '" +
                                                     text + "'");
  }
  return threads;
}

// Turns an engine call's result into the plugin's error.
void check(omnirt_status status, const char* message) {
  if (status != OMNIRT_STATUS_OK) plugin::fail(status, std::string("cpu: ") + message);
}

// libtorch's warnings reach the host's log (and the run report of the call).
void log_engine_warning(const char* message) {
  plugin::log(OMNIRT_LOG_WARN, std::string("libtorch: ") + message);
}

// NOT_SUPPORTED, with the reason, for a format the engine does not load.
void check_format(const char* format) {
  for (const omnirt_module_format_unavailable& u : kUnavailable) {
    if (std::strcmp(format, u.format) == 0) {
      plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED,
                   std::string("cpu: module format '") + u.format + "' cannot be loaded: " + u.reason);
    }
  }
  if (std::strcmp(format, kFormat) != 0) {
    plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED, std::string("cpu: module format '") + format +
                                                  "' is not supported (supported: " + kFormat +
                                                  ")");
  }
}

}  // namespace

// A loaded module; the registry's shared ownership keeps it alive for a run
// that races with its destroy.
struct CpuExecutable {
  const omnirt_cpu_engine_api& engine;
  omnirt_cpu_engine_module* const module;

  CpuExecutable(const omnirt_cpu_engine_api& e, omnirt_cpu_engine_module* m) : engine(e), module(m) {}
  ~CpuExecutable() { engine.destroy(module); }
  CpuExecutable(const CpuExecutable&) = delete;
  CpuExecutable& operator=(const CpuExecutable&) = delete;
};

CpuModules::CpuModules(const plugin::Options& options, MemoryLedger& ledger)
    : ledger_(ledger.for_engine()), threads_(threads_option(options)) {}

template <class F>
auto CpuModules::counted(const omnirt_cpu_engine_api& api, F&& call) {
  struct Scope {
    const omnirt_cpu_engine_api& api;
    const void* previous;
    ~Scope() { api.memory_scope_end(previous); }
  } scope{api, api.memory_scope_begin(&ledger_)};
  return call();
}

void CpuModules::describe_memory(omnirt_memory_stats& stats) const {
  const omnirt_cpu_engine_api* api = library_.loaded();
  if (api == nullptr || api->memory_counted() != 0) stats.known |= OMNIRT_STAT_MODULE_MEMORY;
}

void CpuModules::describe(omnirt_capabilities& caps) const {
  caps.unavailable_module_formats = kUnavailable;
  caps.num_unavailable_module_formats = std::size(kUnavailable);
  if (!library_.usable()) return;
  caps.features |= OMNIRT_FEATURE_MODULES | OMNIRT_FEATURE_COMPILE | OMNIRT_FEATURE_OUTPUT_NAMES |
                   OMNIRT_FEATURE_ENGINE_PREPARE;
  caps.module_formats = kFormats;
  caps.num_module_formats = 1;
}

const omnirt_cpu_engine_api& CpuModules::engine() {
  const omnirt_cpu_engine_api& api = library_.table();
  threads_applied_([&] {
    api.set_warning_sink(&log_engine_warning);
    char message[kMessageCapacity] = "";
    const omnirt_status status = api.configure_threads(threads_, message, sizeof message);
    // libtorch's thread count is per process: another instance set it first.
    if (status == OMNIRT_STATUS_ALREADY_EXISTS) {
      plugin::log(OMNIRT_LOG_WARN, std::string("option threads: ") + message);
    } else {
      check(status, message);
    }
  });
  return api;
}

std::string CpuModules::prepare(const char* format) {
  if (format == nullptr) plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, "cpu: format is NULL");
  check_format(format);
  return engine().engine_version;
}

omnirt_executable* CpuModules::load(const omnirt_module_source& source, int32_t tier) {
  if (source.struct_size < sizeof(omnirt_module_source) || source.format == nullptr) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 "cpu: module source needs struct_size >= " +
                     std::to_string(sizeof(omnirt_module_source)) + " and a format");
  }
  check_format(source.format);
  if ((source.data == nullptr) == (source.path == nullptr)) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 "cpu: a module source sets exactly one of data and path");
  }
  const omnirt_cpu_engine_api& api = engine();
  omnirt_cpu_engine_module* module = nullptr;
  char message[kMessageCapacity] = "";
  check(counted(api,
                [&] {
                  return api.load(source.data, source.size, source.path, tier, &module, message,
                                  sizeof message);
                }),
        message);
  return executables_.add(std::make_shared<CpuExecutable>(api, module));
}

void CpuModules::run(omnirt_executable* executable, const DLTensor* inputs, size_t num_inputs,
                     DLManagedTensor** outputs, size_t output_capacity, size_t* num_outputs) {
  const auto exe = executables_.find(executable);
  if ((num_inputs > 0 && inputs == nullptr) || (output_capacity > 0 && outputs == nullptr)) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, "cpu: inputs or outputs is NULL");
  }
  char message[kMessageCapacity];  // written by the engine on failure only
  message[0] = '\0';
  check(counted(exe->engine,
                [&] {
                  return exe->engine.run(exe->module, inputs, num_inputs, outputs, output_capacity,
                                         num_outputs, message, sizeof message);
                }),
        message);
}

const char* CpuModules::output_name(omnirt_executable* executable, const DLManagedTensor* output) {
  const auto exe = executables_.find(executable);
  char message[kMessageCapacity];
  message[0] = '\0';
  const char* name = nullptr;
  check(exe->engine.output_name(exe->module, output, &name, message, sizeof message), message);
  return name;
}

void CpuModules::destroy(omnirt_executable* executable) {
  if (executable != nullptr) executables_.remove(executable);
}

}  // namespace omnirt::cpu
