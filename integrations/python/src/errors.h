// Failures of the C API as Python exceptions: the omnirt.Error subclass of
// the status (omnirt/errors.py), with the host's message, backend and native
// code from omnirt_last_error().
#ifndef OMNIRT_PYTHON_ERRORS_H_
#define OMNIRT_PYTHON_ERRORS_H_

#include <pybind11/pybind11.h>

#include <string>

#include "omnirt/host.h"

namespace omnirt_py {

/// Raises (as py::error_already_set) the error of the last failed omnirt_*
/// call on this thread. A Python exception that a Python override raised
/// during that call becomes the new exception's __cause__. Needs the GIL.
[[noreturn]] void raise_last_error();

/// The error of the last failed omnirt_* call on this thread as an
/// omnirt.Error object, not raised (a status to report, not to throw). Needs
/// the GIL.
pybind11::object last_error();

/// Raises the omnirt.Error subclass of `status` for a failure the extension
/// found itself (bad Python arguments). Needs the GIL.
[[noreturn]] void raise_error(omnirt_status status, const std::string& message,
                              const std::string& backend = "");

/// raise_last_error() unless `status` is OK.
inline void check(omnirt_status status) {
  if (status != OMNIRT_STATUS_OK) raise_last_error();
}

/// Runs `call` (returning an omnirt_status), a call that may wait (on a
/// device, on peers), without the GIL; then raise_last_error() unless OK.
/// Needs the GIL.
template <class Call>
void call_released(Call&& call) {
  omnirt_status status;
  {
    pybind11::gil_scoped_release release;
    status = call();
  }
  check(status);
}

/// Keeps the Python exception now set (raised by a Python override) for the
/// next raise_last_error() on this thread, and clears it. Needs the GIL.
void stash_override_exception();

/// Drops a stashed override exception (before a call that may stash one).
void clear_override_exception();

/// The status a Python override's exception maps to: an omnirt.Error's own
/// status, else INVALID_ARGUMENT for TypeError/ValueError, OUT_OF_MEMORY for
/// MemoryError, NOT_SUPPORTED for NotImplementedError, INTERNAL otherwise.
/// Reads the stashed exception. Needs the GIL.
omnirt_status stashed_override_status();

}  // namespace omnirt_py

#endif  // OMNIRT_PYTHON_ERRORS_H_
