#include "probe_report.h"

#include <string>

namespace omnirt_probe {
namespace {

std::string failure(const char* what) {
  return std::string(what) + ": " + omnirt_status_name(omnirt_last_error()->status) + ": " +
         omnirt_last_error()->message;
}

void add_capabilities(omnirt_backend* handle, Backend* backend) {
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  if (omnirt_get_capabilities(handle, &caps) != OMNIRT_STATUS_OK) {
    backend->errors.push_back(failure("capabilities"));
    return;
  }
  backend->vendor = caps.vendor;
  backend->dl_device_type = caps.dl_device_type;
  backend->device_count = caps.device_count;
  backend->features = caps.features;
  backend->dtypes = caps.dtypes;
  for (size_t i = 0; i < caps.num_module_formats; ++i) backend->module_formats.emplace_back(caps.module_formats[i]);
  for (size_t i = 0; i < caps.num_unavailable_module_formats; ++i) {
    const omnirt_module_format_unavailable& u = caps.unavailable_module_formats[i];
    if (u.format != nullptr && u.reason != nullptr) {
      backend->unavailable_module_formats.emplace_back(u.format, u.reason);
    }
  }
  const omnirt_op_set* sets = nullptr;
  size_t count = 0;
  const omnirt_status status = omnirt_list_op_sets(handle, &sets, &count);
  if (status == OMNIRT_STATUS_OK) {
    for (size_t i = 0; i < count; ++i) backend->op_sets.emplace_back(sets[i].name, sets[i].version);
  } else if (status != OMNIRT_STATUS_NOT_SUPPORTED) {
    backend->errors.push_back(failure("op sets"));
  }
}

void add_devices(omnirt_backend* handle, Backend* backend) {
  int32_t count = 0;
  if (omnirt_get_device_count(handle, &count) != OMNIRT_STATUS_OK) {
    backend->errors.push_back(failure("device count"));
    return;
  }
  // Lazily initialized backends report 0 in their capabilities until first use.
  backend->device_count = count;
  for (int32_t index = 0; index < count; ++index) {
    omnirt_device_info info{};
    info.struct_size = sizeof info;
    if (omnirt_get_device_info(handle, index, &info) != OMNIRT_STATUS_OK) {
      backend->errors.push_back(failure(("device " + std::to_string(index)).c_str()));
      continue;
    }
    Device device;
    device.index = index;
    device.name = info.name;
    device.arch = info.arch;
    device.compute_units = info.compute_units;
    device.total_bytes = info.total_memory_bytes;
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    if ((backend->features & OMNIRT_FEATURE_MEM_INFO) != 0 &&
        omnirt_mem_get_info(handle, index, &free_bytes, &total_bytes) == OMNIRT_STATUS_OK) {
      device.free_bytes = free_bytes;
      device.total_bytes = total_bytes;
    }
    backend->devices.push_back(std::move(device));
  }
}

// The backend's collective library, or why there is none (the slot may load
// it: asked of available backends only).
void add_collectives(omnirt_backend* handle, Backend* backend) {
  char text[512] = "";
  const omnirt_status status = omnirt_collectives_library(handle, text, sizeof text);
  if (status == OMNIRT_STATUS_OK) {
    backend->collectives_library = text;
  } else if (status == OMNIRT_STATUS_NOT_SUPPORTED) {
    backend->collectives_reason = "not supported";
  } else {
    backend->collectives_reason = failure("unavailable");
  }
}

}  // namespace

size_t ProbeReport::available_count() const {
  size_t count = 0;
  for (const Backend& backend : backends) count += backend.available ? 1 : 0;
  return count;
}

ProbeReport collect(omnirt_host* host, uint64_t host_create_ns) {
  ProbeReport report;
  report.library_version = omnirt_library_version();
  report.abi_version = omnirt_abi_version();
  report.host_create_ns = host_create_ns;

  for (size_t i = 0; i < omnirt_host_search_dir_count(host); ++i) {
    omnirt_search_dir dir{};
    dir.struct_size = sizeof dir;
    if (omnirt_host_get_search_dir(host, i, &dir) != OMNIRT_STATUS_OK) continue;
    report.search_path.push_back({dir.path, dir.source, dir.searched != 0, dir.note});
  }
  for (size_t i = 0; i < omnirt_host_candidate_count(host); ++i) {
    omnirt_candidate c{};
    c.struct_size = sizeof c;
    if (omnirt_host_get_candidate(host, i, &c) != OMNIRT_STATUS_OK) continue;
    report.candidates.push_back({c.path, c.real_path, c.source, c.stage, c.loaded != 0, c.status,
                                 c.skipped != 0, c.reason, c.backend_name, c.plugin_abi_version,
                                 c.load_time_ns, c.vet_outcome, c.vet_cached != 0, c.vet_time_ns});
  }
  for (size_t i = 0; i < omnirt_host_backend_count(host); ++i) {
    omnirt_backend* handle = nullptr;
    omnirt_backend_info info{};
    info.struct_size = sizeof info;
    if (omnirt_host_backend_at(host, i, &handle) != OMNIRT_STATUS_OK ||
        omnirt_backend_get_info(handle, &info) != OMNIRT_STATUS_OK) {
      continue;
    }
    Backend backend;
    backend.name = info.name;
    backend.plugin_version = info.plugin_version;
    backend.abi_version = info.abi_version;
    backend.path = info.path;
    backend.priority = info.priority;
    backend.available = info.available != 0;
    backend.unavailable_reason = info.unavailable_reason;
    for (const Candidate& candidate : report.candidates) {
      if (candidate.loaded && candidate.path == backend.path) backend.load_time_ns = candidate.load_time_ns;
    }
    add_capabilities(handle, &backend);
    if (backend.available) {
      add_devices(handle, &backend);
      add_collectives(handle, &backend);
    }
    report.backends.push_back(std::move(backend));
  }
  return report;
}

void name_own_flags(ProbeReport& report, bool no_env, bool no_installed) {
  for (SearchDir& dir : report.search_path) {
    if (dir.searched) continue;
    if (no_env && dir.source == OMNIRT_SOURCE_ENVIRONMENT) {
      dir.note = "OMNIRT_PLUGIN_PATH ignored (--no-env)";
    } else if (no_installed && dir.source == OMNIRT_SOURCE_INSTALLED) {
      dir.note = "not searched (--no-installed)";
    }
  }
}

}  // namespace omnirt_probe
