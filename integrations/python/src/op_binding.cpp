#include <memory>
#include <string>
#include <vector>

#include "attrs.h"
#include "bindings.h"
#include "errors.h"
#include "inputs.h"
#include "state.h"
#include "tensor.h"

namespace omnirt_py {
namespace {

// An op output allocated on the backend, freed through it.
struct Allocated {
  DLManagedTensor managed;
  std::vector<int64_t> shape;
  omnirt_backend* backend;
  int32_t device;
};

void free_allocated(DLManagedTensor* self) {
  auto* a = static_cast<Allocated*>(self->manager_ctx);
  omnirt_free(a->backend, a->device, a->managed.dl_tensor.data);
  delete a;
}

struct ReleaseAllocated {
  void operator()(DLManagedTensor* managed) const noexcept { free_allocated(managed); }
};
using AllocatedPtr = std::unique_ptr<DLManagedTensor, ReleaseAllocated>;

// A contiguous tensor shaped and typed like `like`, in the backend's memory
// (on like's device when like is in that memory, else device 0) — as the
// host allocates a named op's outputs when the op serves as a module.
AllocatedPtr allocate_like(const BackendState& state, const DLTensor& like) {
  const int32_t device = like.device.device_type == state.device_type() ? like.device.device_id : 0;
  auto* a =
      new Allocated{DLManagedTensor{}, std::vector<int64_t>(like.shape, like.shape + like.ndim),
                    state.backend(), device};
  DLTensor& t = a->managed.dl_tensor;
  t.ndim = like.ndim;
  t.shape = a->shape.data();
  t.dtype = like.dtype;
  t.device = DLDevice{static_cast<DLDeviceType>(state.device_type()), device};
  a->managed.manager_ctx = a;
  a->managed.deleter = &free_allocated;
  AllocatedPtr owned(&a->managed);
  int64_t elements = 1;
  for (int32_t d = 0; d < like.ndim; ++d) elements *= like.shape[d];
  const size_t bytes =
      static_cast<size_t>(elements) * ((like.dtype.bits * like.dtype.lanes + 7) / 8);
  if (bytes > 0) check(omnirt_malloc(state.backend(), device, bytes, &t.data));
  return owned;
}

// b.op(name, *inputs, out=None, **attrs): the outputs `out`, or one new
// tensor like input 0.
py::object run_op(const StatePtr& state, const std::string& name, const py::tuple& inputs,
                  const py::object& out, const py::dict& attrs) {
  const bool stream_device = is_stream_device(state->device_type());
  const InputBatch in(inputs, stream_device, "input");
  const Attrs named(attrs);
  AllocatedPtr allocated;
  std::vector<DLTensor> outputs;
  std::unique_ptr<InputBatch> given;
  if (out.is_none()) {
    if (in.size() == 0) {
      raise_error(OMNIRT_STATUS_INVALID_ARGUMENT,
                  "op '" + name +
                      "': without out=, the output is made like input 0, and there are no inputs");
    }
    allocated = allocate_like(*state, in.data()[0]);
    outputs.push_back(allocated->dl_tensor);
  } else {
    const bool several = py::isinstance<py::tuple>(out) || py::isinstance<py::list>(out);
    given = std::make_unique<InputBatch>(several ? out : py::make_tuple(out), stream_device, "out");
    outputs.assign(given->data(), given->data() + given->size());
  }
  omnirt_status status;
  {
    py::gil_scoped_release release;
    status = omnirt_op_run(state->backend(), name.c_str(), in.data(), in.size(), outputs.data(),
                           outputs.size(), named.data(), named.size(), nullptr);
  }
  check(status);
  if (!allocated) return out;
  return to_python(allocated.release(), state->host(), state->backend(), state->outputs());
}

}  // namespace

void bind_ops(py::module_& m) {
  m.def("run_op", &run_op, py::arg("state"), py::arg("name"), py::arg("inputs"), py::arg("out"),
        py::arg("attrs"));
}

}  // namespace omnirt_py
