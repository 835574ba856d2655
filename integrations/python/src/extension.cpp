// _omnirt: the OmniRT host from Python, over the public C API (host.h) only.
// The package omnirt (omnirt/__init__.py) is its public face.
#include "bindings.h"
#include "tensor.h"

PYBIND11_MODULE(_omnirt, m) {
  m.doc() = "OmniRT host bindings; use the omnirt package.";
  omnirt_py::bind_tensor(m);
  omnirt_py::bind_host(m);
  omnirt_py::bind_backend(m);
  omnirt_py::bind_module(m);
  omnirt_py::bind_ops(m);
  omnirt_py::bind_collectives(m);
}
