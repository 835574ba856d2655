#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attrs.h"
#include "bindings.h"
#include "errors.h"
#include "inputs.h"
#include "omnirt/cpp/host.hpp"
#include "state.h"
#include "tensor.h"
#include "text.h"

namespace omnirt_py {
namespace {

struct DestroyModule {
  void operator()(omnirt_module* module) const noexcept { omnirt_module_destroy(module); }
};
using ModulePtr = std::unique_ptr<omnirt_module, DestroyModule>;

// _omnirt.Module: a wrapped module, called with tensors.
class Module {
 public:
  // More outputs than this are OUT_OF_RANGE (the host's message says so).
  static constexpr size_t kOutputCapacity = 64;

  Module(StatePtr state, ModulePtr module, py::object owner, std::string tag, int32_t device,
         bool record_runs)
      : state_(std::move(state)),
        module_(std::move(module)),
        owner_(std::move(owner)),
        tag_(std::move(tag)),
        device_(device),
        stream_device_(is_stream_device(state_->device_type())),
        report_(record_runs ? state_->report() : nullptr) {}

  py::object call(const py::args& args) const {
    const InputBatch batch(args, stream_device_, "input");
    DLManagedTensor* outputs[kOutputCapacity];
    size_t count = 0;
    clear_override_exception();
    omnirt_status status;
    {
      const CurrentBatch current(&batch);
      py::gil_scoped_release release;
      status = omnirt_module_run(module_.get(), batch.data(), batch.size(), nullptr, outputs,
                                 kOutputCapacity, &count, report_);
    }
    check(status);
    return hand_out(outputs, count);
  }

  py::list timeline() const {
    const py::object attempt = py::module_::import("omnirt._records").attr("Attempt");
    py::list list;
    for (size_t i = 0; i < omnirt_module_attempt_count(module_.get()); ++i) {
      omnirt_attempt a{};
      a.struct_size = sizeof a;
      check(omnirt_module_get_attempt(module_.get(), i, &a));
      list.append(attempt(py::arg("tier") = omnirt::tier_name(a.tier), py::arg("ok") = a.ok != 0,
                          py::arg("selected") = a.selected != 0,
                          py::arg("status") = omnirt_status_name(a.status),
                          py::arg("reason") = text(a.reason),
                          py::arg("elapsed_ms") = static_cast<double>(a.elapsed_ns) / 1e6));
    }
    return list;
  }

  std::optional<std::string> selected_tier() const {
    for (size_t i = 0; i < omnirt_module_attempt_count(module_.get()); ++i) {
      omnirt_attempt a{};
      a.struct_size = sizeof a;
      check(omnirt_module_get_attempt(module_.get(), i, &a));
      if (a.selected != 0) return omnirt::tier_name(a.tier);
    }
    return std::nullopt;
  }

  const std::string& tag() const { return tag_; }
  int32_t device() const { return device_; }
  const std::string& backend() const { return state_->name(); }
  bool record_runs() const { return report_ != nullptr; }

 private:
  // One output: the tensor; several: a tuple; a dict's (every output named
  // by the backend): a dict. Every output is released, also when handing one
  // out fails.
  py::object hand_out(DLManagedTensor** outputs, size_t count) const {
    std::vector<std::string> names;
    try {
      names = output_names(outputs, count);
    } catch (...) {
      for (size_t j = 0; j < count; ++j) outputs[j]->deleter(outputs[j]);
      throw;
    }
    py::tuple results(count);
    for (size_t i = 0; i < count; ++i) {
      try {
        results[i] = to_python(outputs[i], state_->host(), state_->backend(), state_->outputs());
      } catch (...) {
        for (size_t j = i + 1; j < count; ++j) outputs[j]->deleter(outputs[j]);
        throw;
      }
    }
    if (!names.empty()) {
      py::dict named;
      for (size_t i = 0; i < count; ++i) named[text(names[i])] = results[i];
      return py::object(std::move(named));
    }
    return count == 1 ? py::object(results[0]) : py::object(results);
  }

  // The outputs' names when the backend gave every one a name, else none.
  std::vector<std::string> output_names(DLManagedTensor** outputs, size_t count) const {
    std::vector<std::string> names;
    if (!state_->names_outputs()) return names;
    for (size_t i = 0; i < count; ++i) {
      const char* name = nullptr;
      check(omnirt_module_output_name(module_.get(), outputs[i], &name));
      if (name == nullptr || *name == '\0') return {};
      names.emplace_back(name);
    }
    return names;
  }

  StatePtr state_;  // declared first: the module is destroyed while the host is loaded
  ModulePtr module_;
  py::object owner_;  // the Python Backend, which keeps the override callables alive
  std::string tag_;
  int32_t device_;
  bool stream_device_;
  omnirt_report* report_;
};

std::unique_ptr<Module> wrap_module(const StatePtr& state, py::object owner, const py::object& data,
                                    const std::optional<std::string>& path,
                                    const std::string& format,
                                    const std::optional<std::string>& tag, int32_t device,
                                    uint32_t flags, const py::dict& attrs, bool record_runs) {
  omnirt_module_source source{};
  source.struct_size = sizeof source;
  source.format = format.c_str();
  if (!data.is_none()) {
    char* bytes = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(data.ptr(), &bytes, &size) != 0) throw py::error_already_set();
    source.data = bytes;
    source.size = static_cast<size_t>(size);
  }
  source.path = path ? path->c_str() : nullptr;
  const Attrs named(attrs);
  omnirt_wrap_options options{};
  options.struct_size = sizeof options;
  options.device = device;
  options.flags = flags;
  options.attrs = named.data();
  options.num_attrs = named.size();
  omnirt_module* module = nullptr;
  omnirt_status status;
  {
    py::gil_scoped_release release;
    status = omnirt_wrap_module(state->backend(), &source, tag ? tag->c_str() : nullptr, &options,
                                state->report(), &module);
  }
  check(status);
  ModulePtr owned(module);
  return std::make_unique<Module>(state, std::move(owned), std::move(owner), tag.value_or(""),
                                  device, record_runs);
}

}  // namespace

void bind_module(py::module_& m) {
  py::class_<Module>(m, "Module", R"doc(
A module wrapped on a backend (Backend.wrap_module): call it with tensors.

``m(*inputs)`` takes any objects with ``__dlpack__`` (torch, numpy,
omnirt.Tensor) without copying, releases the GIL while the module runs, and
returns one tensor, or a tuple for several outputs (torch tensors when torch
is used, else omnirt.Tensor). Safe to call from several threads at once.)doc")
      .def("__call__", &Module::call)
      .def_property_readonly("timeline", &Module::timeline,
                             "Every attempt of the fallback chain, as the run report has it.")
      .def_property_readonly("selected_tier", &Module::selected_tier,
                             "'compile', 'override' or 'eager'.")
      .def_property_readonly("tag", &Module::tag)
      .def_property_readonly("device", &Module::device)
      .def_property_readonly("backend", &Module::backend, "Name of the backend it runs on.")
      .def_property_readonly("record_runs", &Module::record_runs,
                             "Whether each run is recorded in the backend's report.")
      .def("__repr__", [](const Module& self) {
        return "omnirt.Module(tag='" + self.tag() + "', backend='" + self.backend() +
               "', device=" + std::to_string(self.device()) + ", selected_tier='" +
               self.selected_tier().value_or("none") + "')";
      });
  m.def("wrap_module", &wrap_module, py::arg("state"), py::arg("owner"), py::arg("data"),
        py::arg("path"), py::arg("format"), py::arg("tag"), py::arg("device"), py::arg("flags"),
        py::arg("attrs"), py::arg("record_runs"));
  m.attr("WRAP_DISABLE_COMPILE") = OMNIRT_WRAP_DISABLE_COMPILE;
}

}  // namespace omnirt_py
