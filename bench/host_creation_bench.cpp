// The cost of omnirt_host_create + omnirt_host_destroy over the in-tree
// plugins: cold (each host dlopens its plugins; the last host unloads them)
// and warm (another host keeps the plugins mapped). OMNIRT_BENCH_SEARCH_PATH
// (the in-tree plugin directory) comes from bench/CMakeLists.txt.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "omnirt/host.h"

namespace {

omnirt_host* create_host() {
  const char* paths[] = {OMNIRT_BENCH_SEARCH_PATH};
  omnirt_host_options options{};
  options.struct_size = sizeof options;
  options.plugin_paths = paths;
  options.num_plugin_paths = 1;
  options.flags = OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR;
  omnirt_host* host = nullptr;
  if (omnirt_host_create(&options, &host) != OMNIRT_STATUS_OK) {
    std::fprintf(stderr, "omnirt_bench_host_creation: %s\n", omnirt_last_error()->message);
  }
  return host;
}

void BM_HostCreate_Cold(benchmark::State& state) {
  for (auto _ : state) omnirt_host_destroy(create_host());
}

void BM_HostCreate_Warm(benchmark::State& state) {
  omnirt_host* keeper = create_host();
  for (auto _ : state) omnirt_host_destroy(create_host());
  state.counters["backends"] = static_cast<double>(omnirt_host_backend_count(keeper));
  omnirt_host_destroy(keeper);
}

}  // namespace

BENCHMARK(BM_HostCreate_Cold)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HostCreate_Warm)->Unit(benchmark::kMicrosecond);
