// Tensors leaving the extension: OmniRT-owned DLManagedTensors handed to
// torch, numpy or an omnirt.Tensor without copying.
//
// An output's DLManagedTensor is wrapped in a new one whose deleter calls the
// original deleter and then drops a reference to the host, so the plugin
// whose deleter that is stays loaded, whoever frees the tensor last and on
// whatever thread. No deleter here needs the GIL, except that of a borrowed
// view with a Python owner (Python override inputs), which takes it.
#ifndef OMNIRT_PYTHON_TENSOR_H_
#define OMNIRT_PYTHON_TENSOR_H_

#include <pybind11/pybind11.h>

#include <memory>

#include "state.h"

namespace omnirt_py {

/// Memory of a CUDA or ROCm device, whose work is ordered by streams.
inline bool is_stream_device(int32_t device_type) {
  return device_type == kDLCUDA || device_type == kDLROCM;
}

/// One owned DLManagedTensor, shared by an omnirt.Tensor and its DLPack
/// exports: its deleter runs when the last of them goes, then the host
/// reference is dropped.
class SharedTensor {
 public:
  /// Takes ownership of `managed`. `host` keeps the deleter's plugin loaded
  /// (may be null for memory no plugin owns); `backend`, when not null, is
  /// the backend whose memory it is (synchronized for foreign streams).
  SharedTensor(DLManagedTensor* managed, HostPtr host, omnirt_backend* backend) noexcept
      : managed_(managed), host_(std::move(host)), backend_(backend) {}
  ~SharedTensor() {
    if (managed_->deleter != nullptr) managed_->deleter(managed_);
  }
  SharedTensor(const SharedTensor&) = delete;
  SharedTensor& operator=(const SharedTensor&) = delete;

  const DLTensor& dl() const noexcept { return managed_->dl_tensor; }
  omnirt_backend* backend() const noexcept { return backend_; }

 private:
  DLManagedTensor* managed_;
  HostPtr host_;
  omnirt_backend* backend_;
};

/// omnirt.Tensor: what a run returns when torch is not used. Exposes
/// __dlpack__ / __dlpack_device__, so numpy (np.from_dlpack), torch and any
/// other DLPack consumer read it without copying.
class Tensor {
 public:
  explicit Tensor(std::shared_ptr<SharedTensor> owner) noexcept : owner_(std::move(owner)) {}
  const DLTensor& dl() const noexcept { return owner_->dl(); }
  const std::shared_ptr<SharedTensor>& owner() const noexcept { return owner_; }

 private:
  std::shared_ptr<SharedTensor> owner_;
};

// A torch CUDA tensor's "dltensor" capsule straight from torch, without the
// DLPack stream handshake, when torch's current stream on its device is the
// default one (OmniRT's runs enqueue there: nothing to wait for); a null
// object for anything else (other types, requires_grad, another stream).
py::object torch_cuda_capsule(py::handle obj);

/// Hands an owned output to Python as `kind` (kAuto resolved here); on any
/// failure `managed` is still released. `host` and `backend` as for
/// SharedTensor. Needs the GIL.
py::object to_python(DLManagedTensor* managed, const HostPtr& host, omnirt_backend* backend,
                     OutputKind kind);

/// A non-owning DLManagedTensor over `tensor` (shape and strides copied, data
/// borrowed) whose deleter releases `owner` (a Python object keeping the data
/// alive; may be null), taking the GIL to do so.
DLManagedTensor* borrow(const DLTensor& tensor, py::handle owner);

/// "float32", "int64", "bool", "bfloat16", ... for a DLPack dtype.
std::string dtype_name(DLDataType dtype);

/// Registers omnirt.Tensor in `m`.
void bind_tensor(py::module_& m);

}  // namespace omnirt_py

#endif  // OMNIRT_PYTHON_TENSOR_H_
