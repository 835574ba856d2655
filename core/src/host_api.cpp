// C entry points: host lifecycle, discovery records, backend selection.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "discovery.h"
#include "environment.h"
#include "error.h"
#include "host.h"
#include "logging.h"
#include "omnirt/host.h"
#include "search_path.h"
#include "sized.h"
#include "stopwatch.h"
#include "vetting/vetting.h"

namespace omnirt {
namespace {

constexpr const char* kCreate = "omnirt_host_create";

/// sizeof(omnirt_host_options) in ABI 1.0, which embedders built then pass:
/// where the fields of 1.1 begin.
constexpr size_t kHostOptionsSize_1_0 = offsetof(omnirt_host_options, vetting_cache_dir);
static_assert(sizeof(void*) != 8 || kHostOptionsSize_1_0 == 40, "the 1.1 fields of omnirt_host_options start after 1.0's struct");

// Copies the embedder's options, checking what create needs from them.
omnirt_status read_options(const omnirt_host_options* given, omnirt_host_options* options,
                           std::vector<std::string>* api_paths) {
  *options = sized_struct<omnirt_host_options>();
  if (given == nullptr) return OMNIRT_STATUS_OK;
  if (given->struct_size < kHostOptionsSize_1_0) {
    return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {},
                "{}: options->struct_size is {}; set it to sizeof(omnirt_host_options) ({})", kCreate,
                given->struct_size, sizeof(omnirt_host_options));
  }
  // An older embedder's smaller struct: the fields it lacks keep their
  // defaults. A newer one's larger struct: only the fields this library knows.
  std::memcpy(static_cast<void*>(options), given, std::min(given->struct_size, sizeof *options));
  options->struct_size = sizeof *options;
  if (options->num_plugin_paths > 0 && options->plugin_paths == nullptr) {
    return null_argument(kCreate, "options->plugin_paths");
  }
  for (size_t i = 0; i < options->num_plugin_paths; ++i) {
    if (options->plugin_paths[i] == nullptr) {
      return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: options->plugin_paths[{}] is NULL", kCreate, i);
    }
    api_paths->emplace_back(options->plugin_paths[i]);
  }
  return OMNIRT_STATUS_OK;
}

// The configuration file: options->config_path, else OMNIRT_CONFIG, else none.
omnirt_status read_config(const omnirt_host_options& options, const Environment& env, HostConfig* config) {
  std::string path;
  if (options.config_path != nullptr && options.config_path[0] != '\0') {
    path = options.config_path;
  } else if (env.config_path.has_value()) {
    path = *env.config_path;
  }
  if (!path.empty()) {
    std::string error;
    if (load_config(path, config, &error) != OMNIRT_STATUS_OK) {
      return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: invalid configuration: {}", kCreate, error);
    }
  }
  if (env.disable_compile) {
    config->wrap_module.compile = false;
    config->wrap_module.compile_disabled_by_environment = true;
  }
  return OMNIRT_STATUS_OK;
}

omnirt_status create_host(const omnirt_host_options* given, omnirt_host** out) {
  const Stopwatch watch;
  omnirt_host_options options;
  std::vector<std::string> api_paths;
  OMNIRT_RETURN_IF_ERROR(read_options(given, &options, &api_paths));
  const Environment env = read_environment((options.flags & OMNIRT_HOST_IGNORE_ENVIRONMENT) != 0);
  HostConfig config;
  OMNIRT_RETURN_IF_ERROR(read_config(options, env, &config));
  configure_logging(env, config);
  vetting::VetSettings vetting;
  OMNIRT_RETURN_IF_ERROR(vetting::resolve_settings(options, env, config, &vetting));

  auto host = std::make_unique<omnirt_host>(std::move(config));
  host->search_dirs = build_search_path(api_paths, env, host->config,
                                        (options.flags & OMNIRT_HOST_SKIP_INSTALLED_DIR) != 0);
  discover_plugins(&host->search_dirs, vetting, &host->registry);

  size_t available = 0;
  for (const auto& backend : host->registry.backends()) available += backend->available ? 1 : 0;
  logger().info("host ready in {:.3f} ms: {} backend(s) loaded, {} available, {} candidate file(s)",
                static_cast<double>(watch.elapsed_ns()) / 1e6, host->registry.backends().size(), available,
                host->registry.candidates().size());
  *out = host.release();
  return OMNIRT_STATUS_OK;
}

omnirt_status index_out_of_range(const char* call, size_t index, size_t count) noexcept {
  return fail(OMNIRT_STATUS_OUT_OF_RANGE, {}, "{}: index {} is out of range (there are {})", call, index,
              count);
}

}  // namespace
}  // namespace omnirt

using omnirt::guard_api;
using omnirt::null_argument;

omnirt_status omnirt_host_create(const omnirt_host_options* options, omnirt_host** host) {
  if (host == nullptr) return null_argument(omnirt::kCreate, "host");
  *host = nullptr;
  return guard_api(omnirt::kCreate, [&] { return omnirt::create_host(options, host); });
}

void omnirt_host_destroy(omnirt_host* host) {
  try {
    delete host;
  } catch (...) {  // nothing to report to: destroy returns void
  }
}

size_t omnirt_host_candidate_count(const omnirt_host* host) {
  return host != nullptr ? host->registry.candidates().size() : 0;
}

omnirt_status omnirt_host_get_candidate(const omnirt_host* host, size_t index, omnirt_candidate* out) {
  constexpr const char* kCall = "omnirt_host_get_candidate";
  if (host == nullptr) return null_argument(kCall, "host");
  const auto& candidates = host->registry.candidates();
  if (index >= candidates.size()) return omnirt::index_out_of_range(kCall, index, candidates.size());
  const omnirt::CandidateRecord& c = candidates[index];
  auto full = omnirt::sized_struct<omnirt_candidate>();
  full.path = c.path_shown.c_str();
  full.real_path = c.real_path_shown.c_str();
  full.source = c.source;
  full.stage = c.stage;
  full.loaded = c.loaded ? 1 : 0;
  full.status = c.status;
  full.reason = c.reason.c_str();
  full.backend_name = c.backend_name.c_str();
  full.plugin_abi_version = c.plugin_abi_version;
  full.load_time_ns = c.load_time_ns;
  full.vet_outcome = c.vet_outcome;
  full.vet_cached = c.vet_cached ? 1 : 0;
  full.vet_time_ns = c.vet_time_ns;
  full.skipped = c.skipped ? 1 : 0;
  return omnirt::write_sized(out, full, kCall, "omnirt_candidate");
}

size_t omnirt_host_search_dir_count(const omnirt_host* host) {
  return host != nullptr ? host->search_dirs.size() : 0;
}

omnirt_status omnirt_host_get_search_dir(const omnirt_host* host, size_t index, omnirt_search_dir* out) {
  constexpr const char* kCall = "omnirt_host_get_search_dir";
  if (host == nullptr) return null_argument(kCall, "host");
  if (index >= host->search_dirs.size()) return omnirt::index_out_of_range(kCall, index, host->search_dirs.size());
  const omnirt::SearchDirRecord& d = host->search_dirs[index];
  auto full = omnirt::sized_struct<omnirt_search_dir>();
  full.path = d.path_shown.c_str();
  full.source = d.source;
  full.searched = d.searched ? 1 : 0;
  full.note = d.note.c_str();
  return omnirt::write_sized(out, full, kCall, "omnirt_search_dir");
}

size_t omnirt_host_backend_count(const omnirt_host* host) {
  return host != nullptr ? host->registry.backends().size() : 0;
}

omnirt_status omnirt_host_backend_at(const omnirt_host* host, size_t index, omnirt_backend** backend) {
  constexpr const char* kCall = "omnirt_host_backend_at";
  if (host == nullptr) return null_argument(kCall, "host");
  if (backend == nullptr) return null_argument(kCall, "backend");
  *backend = nullptr;
  const auto& backends = host->registry.backends();
  if (index >= backends.size()) return omnirt::index_out_of_range(kCall, index, backends.size());
  *backend = backends[index].get();
  return OMNIRT_STATUS_OK;
}

omnirt_status omnirt_host_get_backend(omnirt_host* host, const char* name, omnirt_backend** backend) {
  constexpr const char* kCall = "omnirt_host_get_backend";
  if (host == nullptr) return null_argument(kCall, "host");
  if (backend == nullptr) return null_argument(kCall, "backend");
  *backend = nullptr;
  return guard_api(kCall, [&] { return host->registry.select(name, backend); });
}
