// What the host says about its plugins and backends, as Python dicts with
// omnirt-probe's names (omnirt/runtime.py turns them into records).
#ifndef OMNIRT_PYTHON_FACTS_H_
#define OMNIRT_PYTHON_FACTS_H_

#include <pybind11/pybind11.h>

#include "omnirt/host.h"

namespace omnirt_py {

namespace py = pybind11;

/// Everything omnirt-probe shows about a loaded backend: name, plugin_version,
/// abi_version, path, priority, available, reason, vendor, device_type,
/// device_count, features, dtypes, module_formats, op_sets, overridden_ops,
/// devices (each: index, name, arch, compute_units, total_memory_bytes,
/// free_memory_bytes) and errors (questions the backend failed to answer).
/// Devices are asked of available backends only.
py::dict backend_facts(omnirt_backend* backend);

/// Every candidate plugin file: path, real_path, source, stage, loaded,
/// status, reason, backend_name, abi_version, load_time_ms.
py::list candidate_facts(const omnirt_host* host);

/// The search path: path, source, searched, note.
py::list search_path_facts(const omnirt_host* host);

}  // namespace omnirt_py

#endif  // OMNIRT_PYTHON_FACTS_H_
