// The cost of omnirt_host_create + omnirt_host_destroy over the in-tree
// plugins (what omnirt-probe pays before it prints anything):
//   BM_HostCreate_Cold/_Warm  without vetting: each host dlopens its plugins
//                             and the last one unloads them (cold), or another
//                             host keeps them mapped (warm);
//   BM_Vetting                vetting off, vetting with a warm verdict cache
//                             and with a cold one (emptied before each host),
//                             interleaved in one loop so that the machine's
//                             noise hits all three alike; the counters give
//                             the medians, each as a ratio of "off" and as
//                             milliseconds more than "off".
// OMNIRT_BENCH_SEARCH_PATH (the in-tree plugin directory) comes from
// bench/CMakeLists.txt.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "omnirt/host.h"

namespace {

omnirt_host* create_host(omnirt_vetting vetting, const std::string& cache_dir = "") {
  const char* paths[] = {OMNIRT_BENCH_SEARCH_PATH};
  omnirt_host_options options{};
  options.struct_size = sizeof options;
  options.plugin_paths = paths;
  options.num_plugin_paths = 1;
  options.flags = OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR;
  options.vetting = vetting;
  options.vetting_cache_dir = cache_dir.empty() ? nullptr : cache_dir.c_str();
  omnirt_host* host = nullptr;
  if (omnirt_host_create(&options, &host) != OMNIRT_STATUS_OK) {
    std::fprintf(stderr, "omnirt_bench_host_creation: %s\n", omnirt_last_error()->message);
  }
  return host;
}

void BM_HostCreate_Cold(benchmark::State& state) {
  for (auto _ : state) omnirt_host_destroy(create_host(OMNIRT_VETTING_OFF));
}

void BM_HostCreate_Warm(benchmark::State& state) {
  omnirt_host* keeper = create_host(OMNIRT_VETTING_OFF);
  for (auto _ : state) omnirt_host_destroy(create_host(OMNIRT_VETTING_OFF));
  state.counters["backends"] = static_cast<double>(omnirt_host_backend_count(keeper));
  omnirt_host_destroy(keeper);
}

// A verdict cache of the benchmark's own, removed at the end.
class CacheDir {
 public:
  CacheDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "omnirt-bench-cache-XXXXXX").string();
    path_ = mkdtemp(pattern.data()) != nullptr ? pattern : std::string();
  }
  ~CacheDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  CacheDir(const CacheDir&) = delete;
  CacheDir& operator=(const CacheDir&) = delete;
  const std::string& path() const { return path_; }
  void empty() const {
    for (const auto& entry : std::filesystem::directory_iterator(path_)) std::filesystem::remove(entry.path());
  }

 private:
  std::string path_;
};

// Milliseconds one host creation and destruction takes.
double time_host_ms(omnirt_vetting vetting, const std::string& cache_dir) {
  const auto start = std::chrono::steady_clock::now();
  omnirt_host_destroy(create_host(vetting, cache_dir));
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples.empty() ? 0 : samples[samples.size() / 2];
}

void BM_Vetting(benchmark::State& state) {
  const CacheDir cache;
  std::vector<double> off, cold, warm;
  for (auto _ : state) {
    off.push_back(time_host_ms(OMNIRT_VETTING_OFF, ""));
    state.PauseTiming();
    cache.empty();
    state.ResumeTiming();
    cold.push_back(time_host_ms(OMNIRT_VETTING_NEW, cache.path()));
    warm.push_back(time_host_ms(OMNIRT_VETTING_NEW, cache.path()));
  }
  const double off_ms = median(off);
  state.counters["off_ms"] = off_ms;
  state.counters["warm_ms"] = median(warm);
  state.counters["cold_ms"] = median(cold);
  state.counters["warm_ratio"] = median(warm) / off_ms;
  state.counters["cold_ratio"] = median(cold) / off_ms;
  state.counters["warm_extra_ms"] = median(warm) - off_ms;
  state.counters["cold_extra_ms"] = median(cold) - off_ms;
}

}  // namespace

BENCHMARK(BM_HostCreate_Cold)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HostCreate_Warm)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Vetting)->Unit(benchmark::kMillisecond)->Iterations(50);
