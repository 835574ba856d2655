#include "tensor.h"

#include <pybind11/stl.h>

#include <vector>

#include "errors.h"
#include "names.h"

namespace omnirt_py {
namespace {

constexpr const char* kCapsuleName = "dltensor";
// kDLBool is DLPack >= 0.8; Debian's 0.6 header does not name it.
constexpr uint8_t kDLBoolCode = OMNIRT_DL_BOOL;

bool is_host_memory(int32_t device_type) {
  return device_type == kDLCPU || device_type == kDLCUDAHost || device_type == kDLROCMHost;
}

// Releases an owned DLManagedTensor unless ownership moved on.
struct ReleaseManaged {
  void operator()(DLManagedTensor* managed) const noexcept {
    if (managed->deleter != nullptr) managed->deleter(managed);
  }
};
using OwnedManaged = std::unique_ptr<DLManagedTensor, ReleaseManaged>;

// The DLPack protocol's capsule destructor: a capsule that no consumer took
// (renamed "used_dltensor") still owns its tensor.
void release_unconsumed(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kCapsuleName) != 0) {
    ReleaseManaged()(static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName)));
  }
}

py::capsule make_capsule(OwnedManaged managed) {
  PyObject* capsule = PyCapsule_New(managed.get(), kCapsuleName, &release_unconsumed);
  if (capsule == nullptr) throw py::error_already_set();
  managed.release();
  return py::reinterpret_steal<py::capsule>(capsule);
}

// An output bound to its host: handed straight to torch (one allocation).
struct HostBound {
  DLManagedTensor managed;
  DLManagedTensor* inner;
  HostPtr host;
};

void delete_host_bound(DLManagedTensor* self) {
  auto* bound = static_cast<HostBound*>(self->manager_ctx);
  ReleaseManaged()(bound->inner);
  delete bound;  // the host reference goes last: the deleter above may be plugin code
}

// One DLPack export of a SharedTensor; shape and strides point into it.
struct Export {
  DLManagedTensor managed;
  std::shared_ptr<SharedTensor> owner;
};

void delete_export(DLManagedTensor* self) { delete static_cast<Export*>(self->manager_ctx); }

OwnedManaged export_shared(const std::shared_ptr<SharedTensor>& owner) {
  auto* e = new Export{DLManagedTensor{owner->dl(), nullptr, &delete_export}, owner};
  e->managed.manager_ctx = e;
  return OwnedManaged(&e->managed);
}

// A borrowed tensor (data not owned) with its own shape and strides.
struct View {
  DLManagedTensor managed;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  PyObject* owner;
};

void delete_view(DLManagedTensor* self) {
  auto* view = static_cast<View*>(self->manager_ctx);
  // May run on any thread, with or without the GIL (whoever frees the
  // tensor); after interpreter shutdown the owner is leaked, as numpy does.
  if (view->owner != nullptr && Py_IsInitialized() != 0) {
    const PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(view->owner);
    PyGILState_Release(gil);
  }
  delete view;
}

// Python's converters, looked up once (with the GIL). Leaked on purpose: they
// must not be released after the interpreter is gone.
struct Converters {
  bool torch_looked_up = false;
  std::string torch_missing;      // why torch cannot be imported, once looked up
  py::object torch_from_capsule;  // takes a "dltensor" capsule
  py::object torch_from_dlpack;   // takes an object with __dlpack__ (stream handshake)
  py::object torch_to_capsule;    // torch._C._to_dlpack: a tensor's capsule, no handshake
  py::object torch_current_stream;  // torch._C._cuda_getCurrentStream, when torch has CUDA
  PyTypeObject* torch_tensor_type = nullptr;
  py::object numpy_from_dlpack;
};

Converters& converters() {
  static auto* c = new Converters();
  return *c;
}

bool torch_importable() {
  Converters& c = converters();
  if (!c.torch_looked_up) {
    c.torch_looked_up = true;
    try {
      const py::module_ torch = py::module_::import("torch");
      const py::module_ dlpack = py::module_::import("torch.utils.dlpack");
      c.torch_from_dlpack = dlpack.attr("from_dlpack");
      c.torch_from_capsule = py::getattr(torch.attr("_C"), "_from_dlpack", c.torch_from_dlpack);
      c.torch_to_capsule = py::getattr(torch.attr("_C"), "_to_dlpack", py::none());
      c.torch_current_stream = py::getattr(torch.attr("_C"), "_cuda_getCurrentStream", py::none());
      c.torch_tensor_type = reinterpret_cast<PyTypeObject*>(torch.attr("Tensor").ptr());
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_ImportError)) throw;
      c.torch_missing = e.what();
    }
  }
  return static_cast<bool>(c.torch_from_capsule);
}

// Whether torch's current stream on CUDA device `device` is its default
// stream, the legacy default stream OmniRT's runs enqueue on: then tensors
// cross without the DLPack stream handshake (no wait is needed), whose
// Python-level protocol in torch 2.x costs tens of microseconds a call.
bool torch_on_default_stream(int64_t device) {
  const Converters& c = converters();
  if (c.torch_current_stream.is_none() || !c.torch_current_stream) return false;
  const py::object current = c.torch_current_stream(device);
  if (!py::isinstance<py::tuple>(current)) return false;  // an older packing: take the protocol
  return py::cast<py::tuple>(current)[0].cast<int64_t>() == 0;  // stream id 0: the default
}

const Converters& torch_converters() {
  if (!torch_importable()) {
    raise_error(OMNIRT_STATUS_UNAVAILABLE,
                "outputs='torch', but torch cannot be imported: " + converters().torch_missing);
  }
  return converters();
}

const py::object& numpy_from_dlpack() {
  Converters& c = converters();
  if (!c.numpy_from_dlpack) c.numpy_from_dlpack = py::module_::import("numpy").attr("from_dlpack");
  return c.numpy_from_dlpack;
}

std::string device_text(DLDevice device) {
  return std::string(omnirt_probe::device_type_name(device.device_type)) + ":" +
         std::to_string(device.device_id);
}

py::tuple int_tuple(const int64_t* values, int32_t n) {
  py::tuple t(n);
  for (int32_t i = 0; i < n; ++i) t[i] = py::int_(values[i]);
  return t;
}

// Row-major strides in elements, as DLPack means NULL strides.
std::vector<int64_t> compact_strides(const DLTensor& t) {
  std::vector<int64_t> strides(static_cast<size_t>(t.ndim));
  int64_t step = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    strides[d] = step;
    step *= t.shape[d];
  }
  return strides;
}

int64_t numel(const DLTensor& t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

// __dlpack__ of the DLPack protocol (array API 2023: stream, max_version,
// dl_device, copy). Always a legacy "dltensor" capsule, which every
// consumer accepts whatever max_version it names.
py::capsule dlpack(const Tensor& self, py::object stream, py::object /*max_version*/,
                   py::object dl_device, py::object copy) {
  const DLDevice device = self.dl().device;
  if (!copy.is_none() && copy.cast<bool>()) {
    throw py::buffer_error(
        "omnirt.Tensor.__dlpack__: copy=True is not supported (it shares memory only)");
  }
  if (!dl_device.is_none()) {
    const auto wanted = dl_device.cast<std::pair<int32_t, int32_t>>();
    if (wanted.first != device.device_type || wanted.second != device.device_id) {
      throw py::buffer_error("omnirt.Tensor.__dlpack__: the tensor is on " + device_text(device) +
                             "; it cannot be exported to another device");
    }
  }
  // OmniRT's runs enqueue on the backend's default stream (CUDA: the legacy
  // default stream). A consumer on that stream (1), or one that orders
  // itself (-1, None), needs nothing; for any other stream the device is
  // synchronized, which orders the tensor's producer before it.
  if (is_stream_device(device.device_type) && !stream.is_none()) {
    const int64_t s = stream.cast<int64_t>();
    if (s != 1 && s != -1 && self.owner()->backend() != nullptr) {
      omnirt_status status;
      {
        py::gil_scoped_release release;
        status = omnirt_device_synchronize(self.owner()->backend(), device.device_id);
      }
      check(status);
    }
  }
  return make_capsule(export_shared(self.owner()));
}

}  // namespace

py::object torch_cuda_capsule(py::handle obj) {
  // Only where torch is imported already: a non-torch input must not import it.
  if (PyDict_GetItemString(PyImport_GetModuleDict(), "torch") == nullptr || !torch_importable()) {
    return py::object();
  }
  const Converters& c = converters();
  if (c.torch_to_capsule.is_none() || Py_TYPE(obj.ptr()) != c.torch_tensor_type) return py::object();
  // __dlpack__ refuses a tensor that requires grad, with its own message: keep it.
  if (!obj.attr("is_cuda").cast<bool>() || obj.attr("requires_grad").cast<bool>()) return py::object();
  if (!torch_on_default_stream(obj.attr("get_device")().cast<int64_t>())) return py::object();
  return c.torch_to_capsule(obj);
}

std::string dtype_name(DLDataType dtype) {
  std::string base;
  switch (dtype.code) {
    case kDLFloat: base = "float"; break;
    case kDLBfloat: base = "bfloat"; break;
    case kDLInt: base = "int"; break;
    case kDLUInt: base = dtype.bits == 1 ? "" : "uint"; break;
    case kDLComplex: base = "complex"; break;
    case kDLBoolCode: base = ""; break;
    default: base = "code" + std::to_string(dtype.code) + "_"; break;
  }
  std::string name = base.empty() ? std::string("bool") : base + std::to_string(dtype.bits);
  if (dtype.lanes != 1) name += "x" + std::to_string(dtype.lanes);
  return name;
}

// torch before 2.0 and numpy before 1.25 take no bool tensor through DLPack:
// a bool output (OMNIRT_DL_BOOL, one byte each) goes to them as its bytes,
// uint8, and comes back viewed as bool, without a copy.
py::object as_bool(py::object converted, OutputKind kind) {
  const py::object dtype = kind == OutputKind::kTorch ? py::module_::import("torch").attr("bool")
                                                      : py::module_::import("numpy").attr("bool_");
  return converted.attr("view")(dtype);
}

py::object to_python(DLManagedTensor* managed, const HostPtr& host, omnirt_backend* backend,
                     OutputKind kind) {
  OwnedManaged owned(managed);
  if (kind == OutputKind::kAuto)
    kind = torch_importable() ? OutputKind::kTorch : OutputKind::kDlpack;
  const DLDataType dtype = managed->dl_tensor.dtype;
  const bool bool_bytes = kind != OutputKind::kDlpack && dtype.code == kDLBoolCode &&
                          dtype.bits == 8 && dtype.lanes == 1;
  if (bool_bytes) {
    managed->dl_tensor.dtype = DLDataType{kDLUInt, 8, 1};  // the output is ours to describe
    return as_bool(to_python(owned.release(), host, backend, kind), kind);
  }
  const DLDevice device = managed->dl_tensor.device;
  if (kind == OutputKind::kTorch &&
      (is_host_memory(device.device_type) ||
       (device.device_type == kDLCUDA && torch_on_default_stream(device.device_id)))) {
    // Host memory has no stream to order, nor has a consumer on the stream
    // the output was made on: the capsule goes straight to torch.
    const py::object& from_capsule = torch_converters().torch_from_capsule;
    auto* bound = new HostBound{DLManagedTensor{managed->dl_tensor, nullptr, &delete_host_bound},
                                owned.release(), host};
    bound->managed.manager_ctx = bound;
    return from_capsule(make_capsule(OwnedManaged(&bound->managed)));
  }
  const py::object& from_dlpack =
      kind == OutputKind::kTorch ? torch_converters().torch_from_dlpack
                                 : (kind == OutputKind::kNumpy ? numpy_from_dlpack() : py::none());
  auto shared = std::make_shared<SharedTensor>(owned.release(), host, backend);
  py::object tensor = py::cast(Tensor(std::move(shared)));
  return kind == OutputKind::kDlpack ? tensor : from_dlpack(tensor);
}

DLManagedTensor* borrow(const DLTensor& tensor, py::handle owner) {
  auto* view = new View{DLManagedTensor{tensor, nullptr, &delete_view},
                        std::vector<int64_t>(tensor.shape, tensor.shape + tensor.ndim),
                        tensor.strides != nullptr
                            ? std::vector<int64_t>(tensor.strides, tensor.strides + tensor.ndim)
                            : std::vector<int64_t>(),
                        owner.ptr()};
  view->managed.manager_ctx = view;
  view->managed.dl_tensor.shape = view->shape.data();
  view->managed.dl_tensor.strides = tensor.strides != nullptr ? view->strides.data() : nullptr;
  Py_XINCREF(view->owner);
  return &view->managed;
}

void bind_tensor(py::module_& m) {
  py::class_<Tensor>(m, "Tensor", R"doc(
A tensor that OmniRT owns (a run's output when torch is not used).

It shares memory with whatever reads it through DLPack: ``np.from_dlpack(t)``,
``torch.from_dlpack(t)``. It keeps the plugin that owns its memory loaded, so
it stays valid after its Runtime is gone.)doc")
      .def("__dlpack__", &dlpack, py::arg("stream") = py::none(),
           py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
           py::arg("copy") = py::none(), "Exports a DLPack capsule sharing this tensor's memory.")
      .def(
          "__dlpack_device__",
          [](const Tensor& t) {
            return py::make_tuple(static_cast<int32_t>(t.dl().device.device_type),
                                  t.dl().device.device_id);
          },
          "(DLPack device type, device id).")
      .def_property_readonly("shape",
                             [](const Tensor& t) { return int_tuple(t.dl().shape, t.dl().ndim); })
      .def_property_readonly(
          "strides",
          [](const Tensor& t) {
            const DLTensor& dl = t.dl();
            if (dl.strides != nullptr) return int_tuple(dl.strides, dl.ndim);
            const std::vector<int64_t> compact = compact_strides(dl);
            return int_tuple(compact.data(), dl.ndim);
          },
          "Strides in elements.")
      .def_property_readonly("ndim", [](const Tensor& t) { return t.dl().ndim; })
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_name(t.dl().dtype); })
      .def_property_readonly(
          "device", [](const Tensor& t) { return device_text(t.dl().device); },
          "'cpu:0', 'cuda:1', ...")
      .def_property_readonly(
          "data_ptr",
          [](const Tensor& t) {
            return reinterpret_cast<uintptr_t>(static_cast<const char*>(t.dl().data) +
                                               t.dl().byte_offset);
          },
          "Address of the first element.")
      .def_property_readonly("nbytes",
                             [](const Tensor& t) {
                               const DLDataType d = t.dl().dtype;
                               return numel(t.dl()) * ((d.bits * d.lanes + 7) / 8);
                             })
      .def("__repr__", [](const Tensor& t) {
        return "omnirt.Tensor(shape=" +
               py::repr(int_tuple(t.dl().shape, t.dl().ndim)).cast<std::string>() +
               ", dtype=" + dtype_name(t.dl().dtype) + ", device=" + device_text(t.dl().device) +
               ")";
      });
}

}  // namespace omnirt_py
