// Tensors entering the extension: any object with __dlpack__ (torch, numpy,
// omnirt.Tensor, ...) borrowed as a DLTensor without copying.
#ifndef OMNIRT_PYTHON_INPUTS_H_
#define OMNIRT_PYTHON_INPUTS_H_

#include <pybind11/pybind11.h>

#include <vector>

#include "omnirt/types.h"

namespace omnirt_py {

namespace py = pybind11;

/// The DLTensors of one call's inputs. Each producer's capsule (or the
/// omnirt.Tensor itself) is kept until the batch goes, so the tensors stay
/// valid for the call; the producers keep ownership.
class InputBatch {
 public:
  /// Borrows `objects`. `stream_device` says the callee runs on a CUDA or
  /// ROCm backend: producers on such a device are asked for their tensor on
  /// the legacy default stream (`stream=1`, where OmniRT's runs enqueue),
  /// so that their pending work is ordered before the call. Raises
  /// omnirt.InvalidArgument naming `role` and the index for an object
  /// without __dlpack__ or whose capsule is not a DLPack tensor.
  InputBatch(py::handle objects, bool stream_device, const char* role);

  const DLTensor* data() const noexcept { return tensors_.data(); }
  size_t size() const noexcept { return tensors_.size(); }
  /// The Python object keeping input `index` alive.
  py::handle owner(size_t index) const noexcept { return owners_[index]; }

 private:
  std::vector<DLTensor> tensors_;
  std::vector<py::object> owners_;
};

/// One tensor argument (a collective's `send`), borrowed as InputBatch
/// borrows each input: valid while this lives. Raises as InputBatch does,
/// naming the argument `name`.
class InputTensor {
 public:
  InputTensor(py::handle obj, bool stream_device, const char* name);

  const DLTensor& dl() const noexcept { return tensor_; }

 private:
  py::object owner_;  // declared first: tensor_ is borrowed from it
  DLTensor tensor_;
};

/// Takes ownership of `obj`'s tensor through its __dlpack__ (the DLPack
/// consumer's side: the capsule is renamed "used_dltensor" and the caller
/// releases the result through its deleter). `stream_device` as for
/// InputBatch. Raises as InputBatch does.
DLManagedTensor* take_tensor(py::handle obj, bool stream_device, const char* role, size_t index);

/// The batch of the call now running on this thread (set by the caller for
/// the duration of omnirt_module_run), so that a Python override's input
/// views can keep the caller's inputs alive; nullptr when none.
const InputBatch* current_batch() noexcept;

/// Makes `batch` current_batch() on this thread while it lives.
class CurrentBatch {
 public:
  explicit CurrentBatch(const InputBatch* batch) noexcept;
  ~CurrentBatch();
  CurrentBatch(const CurrentBatch&) = delete;
  CurrentBatch& operator=(const CurrentBatch&) = delete;

 private:
  const InputBatch* previous_;
};

}  // namespace omnirt_py

#endif  // OMNIRT_PYTHON_INPUTS_H_
