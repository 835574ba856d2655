// One module run as a benchmark variant calls it, for the cuda module
// benchmarks: through the plugin's vtable (as the host calls it) or through
// the host API (as an embedder does). A runner enqueues one run and releases
// its outputs at once (stream order keeps their memory until the run is
// done); it does not synchronize.
#ifndef OMNIRT_BENCH_CUDA_MODULE_RUNNERS_H_
#define OMNIRT_BENCH_CUDA_MODULE_RUNNERS_H_

#include <algorithm>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include "cuda_plugin.h"
#ifdef OMNIRT_CUDA_BENCH_HOST
#include "omnirt/host.h"
#endif

namespace omnirt::cuda_bench {

using cuda_test::CudaPlugin;

inline double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// An executable of the plugin for `tier`, run through its vtable on `in`.
inline std::function<void()> plugin_runner(CudaPlugin& plugin, const omnirt_module_source& source,
                                           int32_t tier, const char* tag, const DLTensor& in) {
  omnirt_executable* exe = nullptr;
  if (plugin.vt()->module_load(plugin.state(), 0, &source, tier, tag, &exe) != OMNIRT_STATUS_OK) {
    throw std::runtime_error(cuda_test::last_error());
  }
  std::shared_ptr<omnirt_executable> owned(
      exe, [&plugin](omnirt_executable* e) { plugin.vt()->executable_destroy(plugin.state(), e); });
  return [&plugin, owned, &in] {
    DLManagedTensor* out = nullptr;
    size_t count = 0;
    plugin.vt()->executable_run(plugin.state(), owned.get(), &in, 1, nullptr, &out, 1, &count);
    out->deleter(out);
  };
}

#ifdef OMNIRT_CUDA_BENCH_HOST
using Host = std::unique_ptr<omnirt_host, void (*)(omnirt_host*)>;

// A host that finds the cuda plugin of this build only.
inline Host make_host() {
  const char* paths[] = {OMNIRT_CUDA_PLUGIN_PATH};
  const omnirt_host_options options{sizeof options, nullptr, paths, 1,
                                    OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR};
  omnirt_host* host = nullptr;
  omnirt_host_create(&options, &host);
  return Host(host, &omnirt_host_destroy);
}

// The same model through the host API, as an embedder runs it.
inline std::function<void()> host_runner(omnirt_host* host, const omnirt_module_source& source,
                                         uint32_t flags, const char* tag, const DLTensor& in) {
  omnirt_backend* cuda = nullptr;
  omnirt_module* module = nullptr;
  omnirt_wrap_options wrap{};
  wrap.struct_size = sizeof wrap;
  wrap.flags = flags;
  if (host == nullptr || omnirt_host_get_backend(host, "cuda", &cuda) != OMNIRT_STATUS_OK ||
      omnirt_wrap_module(cuda, &source, tag, &wrap, nullptr, &module) != OMNIRT_STATUS_OK) {
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

}  // namespace omnirt::cuda_bench

#endif  // OMNIRT_BENCH_CUDA_MODULE_RUNNERS_H_
