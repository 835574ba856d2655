// C strings from the host as Python str.
#ifndef OMNIRT_PYTHON_TEXT_H_
#define OMNIRT_PYTHON_TEXT_H_

#include <pybind11/pybind11.h>

#include <cstring>
#include <string>

namespace omnirt_py {

/// `s` (NULL reads as "") decoded as UTF-8; bytes that are not UTF-8 (a file
/// name, say) are kept as surrogates, as Python does for OS strings.
inline pybind11::str text(const char* s, size_t size) {
  PyObject* str =
      PyUnicode_DecodeUTF8(s != nullptr ? s : "", static_cast<Py_ssize_t>(size), "surrogateescape");
  if (str == nullptr) throw pybind11::error_already_set();
  return pybind11::reinterpret_steal<pybind11::str>(str);
}
inline pybind11::str text(const char* s) { return text(s, s != nullptr ? std::strlen(s) : 0); }
inline pybind11::str text(const std::string& s) { return text(s.data(), s.size()); }

}  // namespace omnirt_py

#endif  // OMNIRT_PYTHON_TEXT_H_
