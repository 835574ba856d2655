#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "bindings.h"
#include "errors.h"
#include "facts.h"
#include "overrides.h"
#include "state.h"
#include "text.h"

namespace omnirt_py {
namespace {

// The fields the backend knows (omnirt_memory_stats::known), named as in the
// run report's "memory".
py::dict memory_stats(const BackendState& self, int32_t device) {
  omnirt::Backend backend(self.backend());
  omnirt_memory_stats stats{};
  check(backend.memory_stats(device, &stats));
  // Indexed by bit: OMNIRT_STAT_* are 1 << (field's position).
  static_assert(OMNIRT_STAT_ALLOCATED_BYTES == 1 && OMNIRT_STAT_FREE_COUNT == 1 << 4);
  const char* const names[] = {"allocated_bytes", "peak_bytes", "reserved_bytes", "alloc_count",
                               "free_count"};
  const uint64_t values[] = {stats.allocated_bytes, stats.peak_bytes, stats.reserved_bytes,
                             stats.alloc_count, stats.free_count};
  py::dict result;
  for (size_t bit = 0; bit < std::size(names); ++bit) {
    if ((stats.known & (1u << bit)) != 0) result[names[bit]] = values[bit];
  }
  return result;
}

void register_override(BackendState& self, const std::string& tag, py::handle fn) {
  if (!PyCallable_Check(fn.ptr())) {
    raise_error(
        OMNIRT_STATUS_INVALID_ARGUMENT,
        "override for tag '" + tag + "' must be callable, got " + Py_TYPE(fn.ptr())->tp_name);
  }
  auto entry = std::make_unique<PyOverride>(
      PyOverride{fn, tag, self.name(), self.device_type(), self.outputs()});
  check(
      omnirt_register_override(self.backend(), tag.c_str(), &omnirt_py_call_override, entry.get()));
  self.keep(std::move(entry));
}

std::string op_implementer(const BackendState& self, const std::string& op) {
  omnirt_backend* implementer = nullptr;
  check(omnirt_op_resolve(self.backend(), op.c_str(), &implementer));
  omnirt_backend_info info{};
  check(omnirt::Backend(implementer).info(&info));
  return info.name;
}

py::str report_json(const BackendState& self) {
  char* json = nullptr;
  check(omnirt_report_to_json(self.report(), &json));
  const std::unique_ptr<char, void (*)(char*)> owned(json, &omnirt_string_free);
  return text(json);
}

}  // namespace

void bind_backend(py::module_& m) {
  py::class_<BackendState, StatePtr>(m, "BackendHandle",
                                     "One selected backend (use omnirt.Backend).")
      .def_property_readonly("name", &BackendState::name)
      .def_property_readonly(
          "key", [](const BackendState& s) { return reinterpret_cast<uintptr_t>(s.backend()); },
          "Identifies the backend within its host.")
      .def_property_readonly("device_type", &BackendState::device_type,
                             "DLPack device type of its memory.")
      .def("facts", [](const BackendState& s) { return backend_facts(s.backend()); })
      .def("memory_stats", &memory_stats, py::arg("device"))
      .def(
          "reset_memory_stats",
          [](const BackendState& s, int32_t device) {
            check(omnirt_reset_memory_stats(s.backend(), device));
          },
          py::arg("device"))
      .def(
          "mem_info",
          [](const BackendState& s, int32_t device) {
            size_t free_bytes = 0;
            size_t total_bytes = 0;
            call_released([&] {
              return omnirt_mem_get_info(s.backend(), device, &free_bytes, &total_bytes);
            });
            return py::make_tuple(free_bytes, total_bytes);
          },
          py::arg("device"))
      .def(
          "synchronize",
          [](const BackendState& s, int32_t device) {
            call_released([&] { return omnirt_device_synchronize(s.backend(), device); });
          },
          py::arg("device"))
      .def("register_override", &register_override, py::arg("tag"), py::arg("fn"),
           "Registers `fn` (kept alive by the caller) as the override tier of `tag`.")
      .def(
          "unregister_override",
          [](const BackendState& s, const std::string& tag) {
            check(omnirt_unregister_override(s.backend(), tag.c_str()));
          },
          py::arg("tag"))
      .def("op_implementer", &op_implementer, py::arg("op"),
           "Name of the backend that runs op `op` for this one (itself or the base).")
      .def("report_json", &report_json)
      .def(
          "add_stage",
          [](const BackendState& s, const std::string& name, double ms) {
            check(omnirt_report_add_stage(s.report(), name.c_str(), ms));
          },
          py::arg("name"), py::arg("milliseconds"));
}

}  // namespace omnirt_py
