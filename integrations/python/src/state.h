// What the objects of the Python package share: the host, and per backend its
// run report and Python overrides.
//
// Lifetimes: everything handed to Python (Runtime, Backend, Module, output
// tensors) holds a HostPtr, so the host and its plugins stay loaded until the
// last of them goes, whatever order Python frees them in. Nothing here owns a
// Python object, so any of it may be released on any thread without the GIL:
// Python override callables are owned by the Python Backend object (where
// Python's garbage collector sees them, so a callable that refers back to its
// backend is collected), and every Module keeps that object alive.
#ifndef OMNIRT_PYTHON_STATE_H_
#define OMNIRT_PYTHON_STATE_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "omnirt/cpp/host.hpp"

namespace omnirt_py {

namespace py = pybind11;

/// The host, shared by everything that needs its plugins loaded.
using HostPtr = std::shared_ptr<const omnirt::Host>;

/// What runs hand back to Python.
enum class OutputKind {
  kAuto,   ///< torch tensors when torch can be imported, else omnirt.Tensor
  kTorch,  ///< torch tensors
  kNumpy,  ///< numpy arrays (host memory only)
  kDlpack  ///< omnirt.Tensor, which any DLPack consumer reads
};

/// "auto", "torch", "numpy" or "dlpack"; INVALID_ARGUMENT for anything else.
OutputKind parse_output_kind(const std::string& word);

/// A Python callable registered as the override tier of one tag.
struct PyOverride {
  /// Borrowed: the Python Backend that registered it keeps it alive.
  py::handle fn;
  std::string tag;
  std::string backend;
  /// DLPack device type of the backend: the override's outputs must be there.
  int32_t device_type = 0;
  OutputKind outputs = OutputKind::kAuto;
};

/// One backend as the Python objects see it.
class BackendState {
 public:
  /// Makes the backend's run report (every wrap_module is recorded there).
  BackendState(HostPtr host, omnirt_backend* backend, OutputKind outputs);
  ~BackendState();
  BackendState(const BackendState&) = delete;
  BackendState& operator=(const BackendState&) = delete;

  const HostPtr& host() const { return host_; }
  omnirt_backend* backend() const { return backend_; }
  const std::string& name() const { return name_; }
  int32_t device_type() const { return device_type_; }
  /// OMNIRT_FEATURE_OUTPUT_NAMES: the backend names a dict output's tensors.
  bool names_outputs() const { return (features_ & OMNIRT_FEATURE_OUTPUT_NAMES) != 0; }
  OutputKind outputs() const { return outputs_; }
  omnirt_report* report() const { return report_; }

  /// Keeps `entry` for as long as this state lives: modules wrapped while it
  /// was registered call it even after it is unregistered. Called with the GIL
  /// (it is what orders registrations).
  PyOverride* keep(std::unique_ptr<PyOverride> entry);

 private:
  HostPtr host_;
  omnirt_backend* backend_;
  std::string name_;
  int32_t device_type_ = 0;
  uint64_t features_ = 0;
  OutputKind outputs_;
  omnirt_report* report_ = nullptr;
  std::vector<std::unique_ptr<PyOverride>> overrides_;
};

using StatePtr = std::shared_ptr<BackendState>;

}  // namespace omnirt_py

#endif  // OMNIRT_PYTHON_STATE_H_
