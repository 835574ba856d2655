// Named scalar attributes ({"eps": 1e-6}) as the C API takes them.
#ifndef OMNIRT_PYTHON_ATTRS_H_
#define OMNIRT_PYTHON_ATTRS_H_

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "errors.h"
#include "omnirt/types.h"

namespace omnirt_py {

/// The attributes of one call; names and values live as long as this.
class Attrs {
 public:
  /// Raises omnirt.InvalidArgument for a value that is not a real number.
  explicit Attrs(const pybind11::dict& attrs) {
    names_.reserve(attrs.size());
    for (const auto& [key, value] : attrs) {
      names_.push_back(pybind11::str(key).cast<std::string>());
      const double number = PyFloat_AsDouble(value.ptr());
      if (number == -1.0 && PyErr_Occurred() != nullptr) {
        PyErr_Clear();
        raise_error(OMNIRT_STATUS_INVALID_ARGUMENT, "attribute '" + names_.back() +
                                                        "' must be a number, got " +
                                                        pybind11::repr(value).cast<std::string>());
      }
      values_.push_back(number);
    }
    for (size_t i = 0; i < names_.size(); ++i) attrs_.push_back({names_[i].c_str(), values_[i]});
  }

  const omnirt_op_attr* data() const noexcept { return attrs_.empty() ? nullptr : attrs_.data(); }
  size_t size() const noexcept { return attrs_.size(); }

 private:
  std::vector<std::string> names_;
  std::vector<double> values_;
  std::vector<omnirt_op_attr> attrs_;
};

}  // namespace omnirt_py

#endif  // OMNIRT_PYTHON_ATTRS_H_
