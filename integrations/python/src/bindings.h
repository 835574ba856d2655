// The parts of the _omnirt extension, each registering its classes and
// functions in the module.
#ifndef OMNIRT_PYTHON_BINDINGS_H_
#define OMNIRT_PYTHON_BINDINGS_H_

#include <pybind11/pybind11.h>

namespace omnirt_py {

namespace py = pybind11;

/// Host: creation, candidates, search path, backend facts and selection.
void bind_host(py::module_& m);
/// BackendHandle: facts, memory, synchronize, overrides, the run report.
void bind_backend(py::module_& m);
/// wrap_module() and Module.
void bind_module(py::module_& m);
/// run_op().
void bind_ops(py::module_& m);
/// FileStore, Communicator, and the backend's collective calls (ABI 1.1).
void bind_collectives(py::module_& m);

}  // namespace omnirt_py

#endif  // OMNIRT_PYTHON_BINDINGS_H_
