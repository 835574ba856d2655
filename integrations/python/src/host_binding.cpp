#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "errors.h"
#include "facts.h"
#include "names.h"
#include "state.h"

namespace omnirt_py {
namespace {

// _omnirt.Host: one omnirt_host and the state of each backend selected from it.
class NativeHost {
 public:
  NativeHost(const std::vector<std::string>& plugin_paths, const std::optional<std::string>& config,
             uint32_t flags, const std::string& outputs)
      : outputs_(parse_output_kind(outputs)) {
    std::vector<const char*> paths;
    for (const std::string& p : plugin_paths) paths.push_back(p.c_str());
    omnirt_host_options options{};
    options.struct_size = sizeof options;
    options.config_path = config ? config->c_str() : nullptr;
    options.plugin_paths = paths.data();
    options.num_plugin_paths = paths.size();
    options.flags = flags;
    auto host = std::make_shared<omnirt::Host>();
    omnirt_status status;
    {
      py::gil_scoped_release release;
      status = host->create(&options);
    }
    check(status);
    host_ = std::move(host);
  }

  py::list backends() const {
    py::list list;
    for (size_t i = 0; i < host_->backend_count(); ++i) {
      omnirt::Backend backend;
      check(host_->backend_at(i, &backend));
      list.append(backend_facts(backend.get()));
    }
    return list;
  }

  // The same state (report, overrides) every time a backend is selected.
  StatePtr backend(const std::optional<std::string>& name) {
    omnirt::Backend backend;
    check(host_->backend(name ? name->c_str() : nullptr, &backend));
    StatePtr& state = states_[backend.get()];
    if (!state) state = std::make_shared<BackendState>(host_, backend.get(), outputs_);
    return state;
  }

  py::list candidates() const { return candidate_facts(host_->get()); }
  py::list search_path() const { return search_path_facts(host_->get()); }

 private:
  HostPtr host_;
  OutputKind outputs_;
  std::map<omnirt_backend*, StatePtr> states_;
};

}  // namespace

void bind_host(py::module_& m) {
  py::class_<NativeHost>(m, "Host", "One omnirt_host (use omnirt.Runtime).")
      .def(py::init<const std::vector<std::string>&, const std::optional<std::string>&, uint32_t,
                    const std::string&>(),
           py::arg("plugin_paths"), py::arg("config"), py::arg("flags"), py::arg("outputs"))
      .def("backends", &NativeHost::backends, "Facts of every loaded backend, in selection order.")
      .def("backend", &NativeHost::backend, py::arg("name"),
           "Selects a backend (None or 'auto': the first available).")
      .def("candidates", &NativeHost::candidates, "Every candidate plugin file, loaded or not.")
      .def("search_path", &NativeHost::search_path, "The plugin search path.");
  m.attr("HOST_IGNORE_ENVIRONMENT") = OMNIRT_HOST_IGNORE_ENVIRONMENT;
  m.attr("HOST_SKIP_INSTALLED_DIR") = OMNIRT_HOST_SKIP_INSTALLED_DIR;
  m.def("library_version", &omnirt_library_version, "Version of libomnirt.so.");
  m.def(
      "abi_version", [] { return omnirt_probe::version_string(omnirt_abi_version()); },
      "ABI version of libomnirt.so ('1.0').");
  m.def("status_name", &omnirt_status_name, py::arg("status"), "'NOT_SUPPORTED' for 3, ...");
}

}  // namespace omnirt_py
