#include "inputs.h"

#include <cstdint>
#include <string>

#include "errors.h"
#include "tensor.h"

namespace omnirt_py {
namespace {

thread_local const InputBatch* current = nullptr;

PyObject* interned(const char* text) {
  PyObject* s = PyUnicode_InternFromString(text);
  if (s == nullptr) throw py::error_already_set();
  return s;
}

std::string type_name(py::handle obj) { return Py_TYPE(obj.ptr())->tp_name; }

// The producer's device type from __dlpack_device__.
int32_t producer_device_type(py::handle obj) {
  static PyObject* const name = interned("__dlpack_device__");
  const auto device = py::reinterpret_steal<py::object>(PyObject_CallMethodNoArgs(obj.ptr(), name));
  if (!device) throw py::error_already_set();
  return py::cast<py::tuple>(device)[0].cast<int32_t>();
}

// Names an argument in messages: "input 2", or "send" (kUnindexed).
struct ArgName {
  static constexpr size_t kUnindexed = SIZE_MAX;
  const char* role;
  size_t index;

  std::string str() const {
    return index == kUnindexed ? std::string(role)
                               : std::string(role) + " " + std::to_string(index);
  }
};

// obj.__dlpack__() (or with stream=1 for a producer on a CUDA/ROCm device).
py::object export_capsule(py::handle obj, bool stream_device, ArgName arg) {
  static PyObject* const name = interned("__dlpack__");
  if (PyObject_HasAttr(obj.ptr(), name) == 0) {
    raise_error(OMNIRT_STATUS_INVALID_ARGUMENT,
                arg.str() +
                    ": expected a tensor with __dlpack__ (torch.Tensor, numpy.ndarray, "
                    "omnirt.Tensor, ...), got " +
                    type_name(obj));
  }
  if (stream_device) {
    const int32_t type = producer_device_type(obj);
    if (type == kDLCUDA || type == kDLROCM) return obj.attr("__dlpack__")(py::arg("stream") = 1);
  }
  const auto capsule =
      py::reinterpret_steal<py::object>(PyObject_CallMethodNoArgs(obj.ptr(), name));
  if (!capsule) throw py::error_already_set();  // the producer's own error (read-only, grad, ...)
  return capsule;
}

DLManagedTensor* capsule_tensor(const py::object& capsule, py::handle obj, ArgName arg) {
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (managed == nullptr) {
    PyErr_Clear();
    raise_error(OMNIRT_STATUS_INVALID_ARGUMENT,
                arg.str() + ": " + type_name(obj) +
                    ".__dlpack__() did not return an unused 'dltensor' capsule");
  }
  return managed;
}

// obj's DLTensor, borrowed; *owner is what keeps it valid (the capsule, or
// an omnirt.Tensor itself).
DLTensor borrow_input(py::handle obj, bool stream_device, ArgName arg, py::object* owner) {
  if (py::isinstance<Tensor>(obj)) {  // our own: no capsule needed
    *owner = py::reinterpret_borrow<py::object>(obj);
    return obj.cast<const Tensor&>().dl();
  }
  py::object capsule = export_capsule(obj, stream_device, arg);
  const DLTensor tensor = capsule_tensor(capsule, obj, arg)->dl_tensor;
  *owner = std::move(capsule);
  return tensor;
}

}  // namespace

InputBatch::InputBatch(py::handle objects, bool stream_device, const char* role) {
  const auto sequence = py::reinterpret_steal<py::object>(
      PySequence_Fast(objects.ptr(), "inputs must be a sequence of tensors"));
  if (!sequence) throw py::error_already_set();
  const auto count = static_cast<size_t>(PySequence_Fast_GET_SIZE(sequence.ptr()));
  PyObject** items = PySequence_Fast_ITEMS(sequence.ptr());
  tensors_.reserve(count);
  owners_.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    py::object owner;
    tensors_.push_back(borrow_input(items[i], stream_device, ArgName{role, i}, &owner));
    owners_.push_back(std::move(owner));
  }
}

InputTensor::InputTensor(py::handle obj, bool stream_device, const char* name)
    : tensor_(borrow_input(obj, stream_device, ArgName{name, ArgName::kUnindexed}, &owner_)) {}

DLManagedTensor* take_tensor(py::handle obj, bool stream_device, const char* role, size_t index) {
  const py::object capsule = export_capsule(obj, stream_device, ArgName{role, index});
  DLManagedTensor* managed = capsule_tensor(capsule, obj, ArgName{role, index});
  if (PyCapsule_SetName(capsule.ptr(), "used_dltensor") != 0) throw py::error_already_set();
  return managed;
}

const InputBatch* current_batch() noexcept { return current; }

CurrentBatch::CurrentBatch(const InputBatch* batch) noexcept : previous_(current) {
  current = batch;
}

CurrentBatch::~CurrentBatch() { current = previous_; }

}  // namespace omnirt_py
