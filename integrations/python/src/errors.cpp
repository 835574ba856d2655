#include "errors.h"

#include <pybind11/pybind11.h>

#include <utility>

#include "text.h"

namespace omnirt_py {
namespace {

namespace py = pybind11;

// The exception a Python override raised on this thread (owned), for the
// raise_last_error() that reports the failed run. Touched only with the GIL.
thread_local PyObject* stashed_exception = nullptr;

py::object make_error(omnirt_status status, const std::string& message, const std::string& backend,
                      int64_t native_code) {
  return py::module_::import("omnirt.errors")
      .attr("_from_native")(status, text(message), text(backend), native_code);
}

[[noreturn]] void raise_with(omnirt_status status, const std::string& message,
                             const std::string& backend, int64_t native_code, PyObject* cause) {
  py::object error = make_error(status, message, backend, native_code);
  if (cause != nullptr) PyException_SetCause(error.ptr(), cause);  // steals `cause`
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
  throw py::error_already_set();
}

}  // namespace

void raise_last_error() {
  // Copied first: the strings live only until the next failing call.
  const omnirt_error_info& info = *omnirt_last_error();
  const omnirt_status status = info.status;
  const std::string message = info.message;
  const std::string backend = info.backend;
  const int64_t native_code = info.native_code;
  raise_with(status, message, backend, native_code, std::exchange(stashed_exception, nullptr));
}

py::object last_error() {
  const omnirt_error_info& info = *omnirt_last_error();
  const std::string message = info.message;
  const std::string backend = info.backend;
  return make_error(info.status, message, backend, info.native_code);
}

void raise_error(omnirt_status status, const std::string& message, const std::string& backend) {
  raise_with(status, message, backend, 0, nullptr);
}

void stash_override_exception() {
#if PY_VERSION_HEX >= 0x030C0000  // 3.12 keeps one normalized exception
  PyObject* value = PyErr_GetRaisedException();
#else
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  if (value != nullptr && traceback != nullptr) PyException_SetTraceback(value, traceback);
  Py_XDECREF(type);
  Py_XDECREF(traceback);
#endif
  Py_XDECREF(std::exchange(stashed_exception, value));
}

void clear_override_exception() { Py_CLEAR(stashed_exception); }

omnirt_status stashed_override_status() {
  PyObject* e = stashed_exception;
  if (e == nullptr) return OMNIRT_STATUS_INTERNAL;
  const py::module_ errors = py::module_::import("omnirt.errors");
  if (PyObject_IsInstance(e, errors.attr("Error").ptr()) == 1) {
    return py::reinterpret_borrow<py::object>(e).attr("status").cast<omnirt_status>();
  }
  if (PyErr_GivenExceptionMatches(e, PyExc_TypeError) ||
      PyErr_GivenExceptionMatches(e, PyExc_ValueError)) {
    return OMNIRT_STATUS_INVALID_ARGUMENT;
  }
  if (PyErr_GivenExceptionMatches(e, PyExc_MemoryError)) return OMNIRT_STATUS_OUT_OF_MEMORY;
  if (PyErr_GivenExceptionMatches(e, PyExc_NotImplementedError)) return OMNIRT_STATUS_NOT_SUPPORTED;
  return OMNIRT_STATUS_INTERNAL;
}

}  // namespace omnirt_py
