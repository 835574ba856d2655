#include "facts.h"

#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "errors.h"
#include "names.h"
#include "text.h"

namespace omnirt_py {
namespace {

// "capabilities: NOT_SUPPORTED: ..." for the errors list.
py::str failure(const char* what) {
  return text(std::string(what) + ": " + omnirt_status_name(omnirt_last_error()->status) + ": " +
              omnirt_last_error()->message);
}

py::object version_or_none(uint32_t version) {
  return version != 0 ? py::object(py::str(omnirt_probe::version_string(version))) : py::none();
}

// Returns the feature bits (0, and empty facts, when the backend could not say).
uint64_t add_capabilities(omnirt_backend* backend, py::dict& facts, py::list& errors) {
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  if (omnirt_get_capabilities(backend, &caps) != OMNIRT_STATUS_OK) {
    errors.append(failure("capabilities"));
    caps = omnirt_capabilities{};
    caps.vendor = "";
  }
  py::list formats;
  for (size_t i = 0; i < caps.num_module_formats; ++i) formats.append(text(caps.module_formats[i]));
  facts["vendor"] = text(caps.vendor);
  facts["device_type"] = omnirt_probe::device_type_name(caps.dl_device_type);
  facts["dl_device_type"] = caps.dl_device_type;
  facts["device_count"] = caps.device_count;
  facts["features"] = omnirt_probe::feature_names(caps.features);
  facts["dtypes"] = omnirt_probe::dtype_names(caps.dtypes);
  facts["module_formats"] = formats;
  return caps.features;
}

py::list op_sets(omnirt_backend* backend, py::list& errors) {
  py::list list;
  const omnirt_op_set* sets = nullptr;
  size_t count = 0;
  const omnirt_status status = omnirt_list_op_sets(backend, &sets, &count);
  if (status == OMNIRT_STATUS_OK) {
    for (size_t i = 0; i < count; ++i)
      list.append(py::make_tuple(text(sets[i].name), sets[i].version));
  } else if (status != OMNIRT_STATUS_NOT_SUPPORTED) {
    errors.append(failure("op sets"));
  }
  return list;
}

py::list overridden_ops(omnirt_backend* backend, py::list& errors) {
  py::list list;
  size_t total = 0;
  if (omnirt_list_overridden_ops(backend, nullptr, 0, &total) != OMNIRT_STATUS_OK) {
    errors.append(failure("overridden ops"));
    return list;
  }
  std::vector<const char*> names(total);
  if (omnirt_list_overridden_ops(backend, names.data(), names.size(), &total) != OMNIRT_STATUS_OK) {
    errors.append(failure("overridden ops"));
    return list;
  }
  for (size_t i = 0; i < total && i < names.size(); ++i) list.append(text(names[i]));
  return list;
}

py::list devices(omnirt_backend* backend, bool has_mem_info, py::list& errors) {
  py::list list;
  int32_t count = 0;
  if (omnirt_get_device_count(backend, &count) != OMNIRT_STATUS_OK) {
    errors.append(failure("device count"));
    return list;
  }
  for (int32_t index = 0; index < count; ++index) {
    omnirt_device_info info{};
    info.struct_size = sizeof info;
    if (omnirt_get_device_info(backend, index, &info) != OMNIRT_STATUS_OK) {
      errors.append(failure(("device " + std::to_string(index)).c_str()));
      continue;
    }
    py::dict device;
    device["index"] = index;
    device["name"] = text(info.name);
    device["arch"] = text(info.arch);
    device["compute_units"] = info.compute_units;
    device["total_memory_bytes"] = info.total_memory_bytes;
    device["free_memory_bytes"] = py::none();
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    if (has_mem_info &&
        omnirt_mem_get_info(backend, index, &free_bytes, &total_bytes) == OMNIRT_STATUS_OK) {
      device["free_memory_bytes"] = free_bytes;
      device["total_memory_bytes"] = total_bytes;
    }
    list.append(device);
  }
  return list;
}

}  // namespace

py::dict backend_facts(omnirt_backend* backend) {
  py::dict facts;
  py::list errors;
  omnirt_backend_info info{};
  info.struct_size = sizeof info;
  check(omnirt_backend_get_info(backend, &info));
  facts["name"] = text(info.name);
  facts["plugin_version"] = text(info.plugin_version);
  facts["abi_version"] = omnirt_probe::version_string(info.abi_version);
  facts["path"] = text(info.path);
  facts["priority"] = info.priority;
  facts["available"] = info.available != 0;
  facts["reason"] = text(info.unavailable_reason);
  const uint64_t features = add_capabilities(backend, facts, errors);
  facts["op_sets"] = op_sets(backend, errors);
  // Only an available backend can be asked which ops it overrides.
  facts["overridden_ops"] = info.available != 0 ? overridden_ops(backend, errors) : py::list();
  const bool has_mem_info = (features & OMNIRT_FEATURE_MEM_INFO) != 0;
  facts["devices"] = info.available != 0 ? devices(backend, has_mem_info, errors) : py::list();
  facts["errors"] = errors;
  return facts;
}

namespace {

// One dict per record `get` fills (a sized struct), skipping any it cannot.
template <class Record, class Get, class ToDict>
py::list records(size_t count, Get get, ToDict to_dict) {
  py::list list;
  for (size_t i = 0; i < count; ++i) {
    Record r{};
    r.struct_size = sizeof r;
    if (get(i, &r) == OMNIRT_STATUS_OK) list.append(to_dict(r));
  }
  return list;
}

}  // namespace

py::list candidate_facts(const omnirt_host* host) {
  return records<omnirt_candidate>(
      omnirt_host_candidate_count(host),
      [&](size_t i, omnirt_candidate* c) { return omnirt_host_get_candidate(host, i, c); },
      [](const omnirt_candidate& c) {
        py::dict facts;
        facts["path"] = text(c.path);
        facts["real_path"] = text(c.real_path);
        facts["source"] = omnirt_probe::source_name(c.source);
        facts["stage"] = omnirt_load_stage_name(c.stage);
        facts["loaded"] = c.loaded != 0;
        facts["status"] = omnirt_status_name(c.status);
        facts["reason"] = text(c.reason);
        facts["backend_name"] = text(c.backend_name);
        facts["abi_version"] = version_or_none(c.plugin_abi_version);
        facts["load_time_ms"] = static_cast<double>(c.load_time_ns) / 1e6;
        return facts;
      });
}

py::list search_path_facts(const omnirt_host* host) {
  return records<omnirt_search_dir>(
      omnirt_host_search_dir_count(host),
      [&](size_t i, omnirt_search_dir* d) { return omnirt_host_get_search_dir(host, i, d); },
      [](const omnirt_search_dir& d) {
        py::dict facts;
        facts["path"] = text(d.path);
        facts["source"] = omnirt_probe::source_name(d.source);
        facts["searched"] = d.searched != 0;
        facts["note"] = text(d.note);
        return facts;
      });
}

}  // namespace omnirt_py
