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

// A torch or numpy bool tensor, which torch before 2.0 and numpy before 1.25
// cannot export through DLPack: it goes as its bytes (a uint8 view of the
// same memory) and is marked bool again (OMNIRT_DL_BOOL).
bool is_bool_array(py::handle obj) {
  static PyObject* const name = interned("dtype");
  if (PyObject_HasAttr(obj.ptr(), name) == 0) return false;
  const std::string dtype = py::str(obj.attr(name));
  return dtype == "torch.bool" || dtype == "bool";
}

py::object as_bytes(py::handle obj) {
  const std::string dtype = py::str(obj.attr("dtype"));
  return obj.attr("view")(dtype == "torch.bool" ? py::module_::import("torch").attr("uint8")
                                                : py::module_::import("numpy").attr("uint8"));
}

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
    if (py::object capsule = torch_cuda_capsule(obj)) return capsule;
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
  const bool bools = is_bool_array(obj);
  py::object capsule = export_capsule(bools ? as_bytes(obj) : obj, stream_device, arg);
  DLTensor tensor = capsule_tensor(capsule, obj, arg)->dl_tensor;
  if (bools) tensor.dtype = DLDataType{OMNIRT_DL_BOOL, 8, 1};
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
  const bool bools = is_bool_array(obj);
  const py::object capsule =
      export_capsule(bools ? as_bytes(obj) : obj, stream_device, ArgName{role, index});
  DLManagedTensor* managed = capsule_tensor(capsule, obj, ArgName{role, index});
  if (PyCapsule_SetName(capsule.ptr(), "used_dltensor") != 0) throw py::error_already_set();
  if (bools) managed->dl_tensor.dtype = DLDataType{OMNIRT_DL_BOOL, 8, 1};
  return managed;
}

const InputBatch* current_batch() noexcept { return current; }

CurrentBatch::CurrentBatch(const InputBatch* batch) noexcept : previous_(current) {
  current = batch;
}

CurrentBatch::~CurrentBatch() { current = previous_; }

}  // namespace omnirt_py
