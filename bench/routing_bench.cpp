// The cost of routing: one call through libomnirt.so (argument checks, the
// slot lookup, the exception guard) against the same vtable slot of the same
// plugin called directly, in the same process. Each benchmark makes its own
// fresh plugin instance and host, so that neither side inherits the other's
// heap state.
// OMNIRT_BENCH_PLUGIN and OMNIRT_BENCH_BACKEND come from bench/CMakeLists.txt.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "omnirt/backend.h"
#include "omnirt/host.h"

namespace {

omnirt_status ignore_error(omnirt_status status, int64_t, const char*) { return status; }
void ignore_log(int32_t, const char*, const char*) {}
const omnirt_host_services kServices = {sizeof(omnirt_host_services), OMNIRT_ABI_VERSION, &ignore_error,
                                        &ignore_log};

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "omnirt_bench_routing: %s failed: %s\n", what, omnirt_last_error()->message);
  std::exit(1);
}

// The plugin's vtable, from its entry point as an embedder without OmniRT
// would get it. The library stays loaded for the whole run.
const omnirt_backend_vtable& plugin_vtable() {
  static const omnirt_backend_vtable* const vtable = [] {
    void* library = dlopen(OMNIRT_BENCH_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    auto entry = library != nullptr
                     ? reinterpret_cast<omnirt_backend_entry_fn>(dlsym(library, OMNIRT_BACKEND_ENTRY_SYMBOL))
                     : nullptr;
    const omnirt_backend_entry_args args{sizeof args, OMNIRT_ABI_VERSION, OMNIRT_ABI_VERSION, &kServices};
    const omnirt_backend_vtable* answer = entry != nullptr ? entry(&args) : nullptr;
    if (answer == nullptr) die("loading " OMNIRT_BENCH_PLUGIN);
    return answer;
  }();
  return *vtable;
}

// A fresh host with the same plugin, called through libomnirt.so. Made after
// plugin_vtable(), so the plugin's errors go to the host.
struct Routed {
  Routed() {
    plugin_vtable();
    const char* paths[] = {OMNIRT_BENCH_PLUGIN};
    omnirt_host_options options{};
    options.struct_size = sizeof options;
    options.plugin_paths = paths;
    options.num_plugin_paths = 1;
    options.flags = OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR;
    if (omnirt_host_create(&options, &host) != OMNIRT_STATUS_OK ||
        omnirt_host_get_backend(host, OMNIRT_BENCH_BACKEND, &backend) != OMNIRT_STATUS_OK) {
      die("host setup");
    }
  }
  ~Routed() { omnirt_host_destroy(host); }
  omnirt_host* host = nullptr;
  omnirt_backend* backend = nullptr;
};

// A fresh instance of the plugin, called directly. A host over the same
// plugin stays alive beside it, idle, so that heap and loaded libraries are in
// the state the routed side sees.
struct Direct {
  Direct() : vtable(plugin_vtable()) {
    const omnirt_backend_create_args args{sizeof args, nullptr, nullptr, 0};
    if (vtable.create(&args, &state) != OMNIRT_STATUS_OK) die("create");
  }
  ~Direct() { vtable.destroy(state); }
  Routed idle_host;
  const omnirt_backend_vtable& vtable;
  omnirt_backend_state* state = nullptr;
};

void BM_Direct_Memset0(benchmark::State& state) {
  Direct d;
  void* buffer = nullptr;
  d.vtable.malloc_device(d.state, 0, 64, &buffer);
  for (auto _ : state) benchmark::DoNotOptimize(d.vtable.memset_sync(d.state, buffer, 0, 0));
  d.vtable.free_device(d.state, 0, buffer);
}

void BM_Routed_Memset0(benchmark::State& state) {
  Routed r;
  void* buffer = nullptr;
  omnirt_malloc(r.backend, 0, 64, &buffer);
  for (auto _ : state) benchmark::DoNotOptimize(omnirt_memset(r.backend, buffer, 0, 0));
  omnirt_free(r.backend, 0, buffer);
}

void BM_Direct_MallocFree64(benchmark::State& state) {
  Direct d;
  for (auto _ : state) {
    void* ptr = nullptr;
    d.vtable.malloc_device(d.state, 0, 64, &ptr);
    benchmark::DoNotOptimize(ptr);
    d.vtable.free_device(d.state, 0, ptr);
  }
}

void BM_Routed_MallocFree64(benchmark::State& state) {
  Routed r;
  for (auto _ : state) {
    void* ptr = nullptr;
    omnirt_malloc(r.backend, 0, 64, &ptr);
    benchmark::DoNotOptimize(ptr);
    omnirt_free(r.backend, 0, ptr);
  }
}

}  // namespace

// Interleaved so that each pair runs under the same conditions.
BENCHMARK(BM_Direct_Memset0);
BENCHMARK(BM_Routed_Memset0);
BENCHMARK(BM_Direct_MallocFree64);
BENCHMARK(BM_Routed_MallocFree64);
