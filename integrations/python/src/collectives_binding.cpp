// FileStore, Communicator and the backend's collective calls (ABI 1.1).
//
// Lifetimes: a communicator keeps its backend's state (so the host) and the
// store it met through alive until it is destroyed, as host.h requires;
// closing the Runtime or the FileStore first is safe. Each call holds the
// communicator's handle for its duration, so close() on another thread
// destroys it only once that call is done.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "collective_buffers.h"
#include "errors.h"
#include "inputs.h"
#include "state.h"
#include "tensor.h"
#include "text.h"

namespace omnirt_py {
namespace {

using StorePtr = std::shared_ptr<const omnirt::FileStore>;

// omnirt.FileStore: the host's file-backed store on one directory.
class FileStore {
 public:
  explicit FileStore(const std::filesystem::path& directory) : directory_(directory.string()) {
    auto store = std::make_shared<omnirt::FileStore>();
    check(store->create(directory_.c_str()));
    store_ = std::move(store);
  }

  const StorePtr& live() const {
    if (!store_) raise_error(OMNIRT_STATUS_INVALID_ARGUMENT, "this FileStore is closed");
    return store_;
  }
  void close() { store_.reset(); }
  bool closed() const { return !store_; }
  const std::string& directory() const { return directory_; }

 private:
  std::string directory_;
  StorePtr store_;
};

// What one communicator needs alive; destroyed in reverse order: the
// communicator, then the store, then the host.
struct CommHandle {
  StatePtr state;
  StorePtr store;  // null for local communicators
  omnirt::Communicator comm;
};
using HandlePtr = std::shared_ptr<CommHandle>;

// The tensors of the collectives this thread issued inside its open group
// (group_start .. the outermost group_end): they run at the group's end, so
// their Python objects are kept until then. Owned references, released with
// the GIL; a thread that exits with a group open leaks them rather than
// releasing them without the GIL.
struct GroupTensors {
  int depth = 0;
  std::vector<PyObject*> kept;

  void keep(const py::object& tensor) {
    if (depth > 0) kept.push_back(py::object(tensor).release().ptr());
  }
  void release_all() {
    for (PyObject* tensor : std::exchange(kept, {})) Py_DECREF(tensor);
  }
};
thread_local GroupTensors group_tensors;

void group_start(const StatePtr& state) {
  check(omnirt_group_start(state->backend()));
  ++group_tensors.depth;
}

void group_end(const StatePtr& state) {
  omnirt_status status;
  {
    py::gil_scoped_release release;
    status = omnirt_group_end(state->backend());
  }
  if (group_tensors.depth > 0 && --group_tensors.depth == 0) group_tensors.release_all();
  check(status);
}

// omnirt.Communicator: one rank of a group.
class Communicator {
 public:
  Communicator(HandlePtr handle, int32_t rank, int32_t nranks, int32_t device)
      : handle_(std::move(handle)), rank_(rank), nranks_(nranks), device_(device) {}

  py::object all_reduce(const py::object& send, const py::object& recv, const std::string& op) {
    const int32_t reduce = parse_reduce_op(op, "all_reduce");
    const Call c(*this, "all_reduce", send, recv);
    c.require_recv(c.in.count, "as many as send");
    call_released([&] {
      return c.handle->comm.all_reduce(c.in.data, c.out.data, c.in.count, c.in.dtype, reduce);
    });
    return c.recv_obj;
  }

  py::object all_gather(const py::object& send, const py::object& recv) {
    require_recv_given(recv, "all_gather", "nranks times send's elements");
    const Call c(*this, "all_gather", send, recv);
    c.require_recv(c.in.count * size_t(nranks_),
                   "nranks (" + std::to_string(nranks_) + ") times send's");
    call_released(
        [&] { return c.handle->comm.all_gather(c.in.data, c.out.data, c.in.count, c.in.dtype); });
    return c.recv_obj;
  }

  py::object reduce_scatter(const py::object& send, const py::object& recv, const std::string& op) {
    const int32_t reduce = parse_reduce_op(op, "reduce_scatter");
    require_recv_given(recv, "reduce_scatter", "send's elements divided by nranks");
    const Call c(*this, "reduce_scatter", send, recv);
    if (c.in.count % size_t(nranks_) != 0) {
      raise_error(OMNIRT_STATUS_INVALID_ARGUMENT,
                  "reduce_scatter: send has " + std::to_string(c.in.count) +
                      " elements, not a multiple of nranks (" + std::to_string(nranks_) + ")");
    }
    c.require_recv(c.in.count / size_t(nranks_),
                   "send's divided by nranks (" + std::to_string(nranks_) + ")");
    call_released([&] {
      return c.handle->comm.reduce_scatter(c.in.data, c.out.data, c.out.count, c.in.dtype, reduce);
    });
    return c.recv_obj;
  }

  py::object broadcast(const py::object& send, const py::object& recv, int32_t root) {
    const Call c(*this, "broadcast", send, recv);
    c.require_recv(c.in.count, "as many as send");
    call_released([&] {
      return c.handle->comm.broadcast(c.in.data, c.out.data, c.in.count, c.in.dtype, root);
    });
    return c.recv_obj;
  }

  void send(const py::object& tensor, int32_t peer) {
    const Call c(*this, "send", tensor, py::none(), "tensor");
    call_released([&] { return c.handle->comm.send(c.in.data, c.in.count, c.in.dtype, peer); });
  }

  py::object recv(const py::object& tensor, int32_t peer) {
    const Call c(*this, "recv", tensor, py::none(), "tensor");
    call_released([&] { return c.handle->comm.recv(c.in.data, c.in.count, c.in.dtype, peer); });
    return tensor;
  }

  py::object async_error() const {
    if (live()->comm.async_error() == OMNIRT_STATUS_OK) return py::none();
    return last_error();
  }

  // Destroys the communicator once no call is using it (now, unless another
  // thread is in one), after its enqueued work. Idempotent.
  void close() {
    HandlePtr handle = std::move(handle_);
    if (handle == nullptr || handle.use_count() > 1) return;
    call_released([&] { return handle->comm.reset(); });
  }

  bool closed() const { return handle_ == nullptr; }
  int32_t rank() const { return rank_; }
  int32_t nranks() const { return nranks_; }
  int32_t device() const { return device_; }
  std::string backend() const { return live()->state->name(); }

 private:
  // One call's communicator and tensors: `send` (or `tensor`), and `recv`,
  // which is `send` itself when None (in place). The tensors stay borrowed,
  // and the communicator alive, while this lives.
  struct Call {
    Call(const Communicator& self, const char* call, const py::object& send, const py::object& recv,
         const char* send_name = "send")
        : name(call),
          handle(self.live()),
          device(self.device_),
          stream_device(is_stream_device(handle->state->device_type())),
          recv_obj(recv.is_none() ? send : recv),
          send_tensor(send, stream_device, send_name),
          in(buffer(send_tensor.dl(), send_name)),
          recv_tensor(recv.is_none() ? nullptr
                                     : std::make_unique<InputTensor>(recv, stream_device, "recv")),
          out(recv_tensor ? buffer(recv_tensor->dl(), "recv") : in) {
      group_tensors.keep(send);
      if (!recv.is_none()) group_tensors.keep(recv);
    }

    CollectiveBuffer buffer(const DLTensor& t, const char* arg) const {
      return collective_buffer(t, handle->state->device_type(), device, CollectiveArg{name, arg});
    }
    // recv has send's dtype and `count` elements (`why` says why that many).
    void require_recv(size_t count, const std::string& why) const {
      require_shape(out, CollectiveArg{name, recv_tensor ? "recv" : "send (in place)"}, in, "send",
                    count, why);
    }

    const char* name;
    HandlePtr handle;
    int32_t device;
    bool stream_device;
    py::object recv_obj;  // what the call returns
    InputTensor send_tensor;
    CollectiveBuffer in;
    std::unique_ptr<InputTensor> recv_tensor;
    CollectiveBuffer out;
  };

  static void require_recv_given(const py::object& recv, const char* call, const char* count) {
    if (recv.is_none()) {
      raise_error(OMNIRT_STATUS_INVALID_ARGUMENT,
                  std::string(call) + ": recv is required (a tensor of " + count + ")");
    }
  }

  const HandlePtr& live() const {
    if (handle_ == nullptr)
      raise_error(OMNIRT_STATUS_INVALID_ARGUMENT, "this Communicator is closed");
    return handle_;
  }

  HandlePtr handle_;
  int32_t rank_;
  int32_t nranks_;
  int32_t device_;
};

Communicator comm_create(const StatePtr& state, py::handle store, int32_t rank, int32_t nranks,
                         int32_t device, const std::string& key_prefix, uint32_t timeout_ms) {
  if (!py::isinstance<FileStore>(store)) {
    raise_error(
        OMNIRT_STATUS_INVALID_ARGUMENT,
        std::string("store must be an omnirt.FileStore, got ") + Py_TYPE(store.ptr())->tp_name);
  }
  StorePtr kept = store.cast<const FileStore&>().live();
  omnirt::Communicator comm;
  call_released([&] {
    return omnirt::Backend(state->backend())
        .create_communicator(*kept, nranks, rank, device, &comm, timeout_ms, key_prefix.c_str());
  });
  return Communicator(
      std::make_shared<CommHandle>(CommHandle{state, std::move(kept), std::move(comm)}), rank,
      nranks, device);
}

std::vector<Communicator> comm_create_local(const StatePtr& state,
                                            const std::vector<int32_t>& devices) {
  std::vector<omnirt::Communicator> comms(devices.size());
  call_released([&] {
    return omnirt::Backend(state->backend())
        .create_local_communicators(devices.data(), devices.size(), comms.data());
  });
  std::vector<Communicator> out;
  const auto nranks = static_cast<int32_t>(devices.size());
  for (int32_t rank = 0; rank < nranks; ++rank) {
    out.emplace_back(
        std::make_shared<CommHandle>(CommHandle{state, nullptr, std::move(comms[size_t(rank)])}),
        rank, nranks, devices[size_t(rank)]);
  }
  return out;
}

py::str collectives_library(const StatePtr& state) {
  char text_out[1024] = "";
  call_released([&] {
    return omnirt::Backend(state->backend()).collectives_library(text_out, sizeof text_out);
  });
  return text(text_out);
}

template <class T>
T& enter(T& self) {
  return self;
}

}  // namespace

void bind_collectives(py::module_& m) {
  py::class_<FileStore>(m, "FileStore", R"doc(
The host's file-backed key-value store (omnirt_file_store_create), where
ranks of one machine or a shared filesystem meet: ``FileStore(directory)``
(made 0700 when missing; a world-writable one is refused). Files are left
in it: use a fresh directory (or key_prefix) per group. A context manager;
communicators that met through it keep it open until they are closed.)doc")
      .def(py::init<const std::filesystem::path&>(), py::arg("directory"))
      .def_property_readonly("directory", &FileStore::directory)
      .def_property_readonly("closed", &FileStore::closed)
      .def("close", &FileStore::close, "Lets go of the store (idempotent).")
      .def("__enter__", &enter<FileStore>, py::return_value_policy::reference)
      .def("__exit__", [](FileStore& self, const py::args&) { self.close(); })
      .def("__repr__", [](const FileStore& self) {
        return "omnirt.FileStore('" + self.directory() + "'" + (self.closed() ? ", closed)" : ")");
      });

  py::class_<Communicator>(m, "Communicator", R"doc(
One rank of a group (Backend.comm, Backend.local_comms). Every rank calls
the same collectives in the same order with the same counts and dtypes.

Tensors are any objects with ``__dlpack__`` (torch, numpy, omnirt.Tensor)
on the communicator's device, contiguous, taken without copying; the dtype
comes from the tensor. The GIL is released while a call runs. Work is
enqueued on the device's default stream (on the cpu backend it is complete
when the call returns); inside ``Backend.group()`` it runs at the group's
end, which keeps the tensors alive until then. A failure breaks the communicator:
close it and make a new one. A context manager (``close()``).)doc")
      .def("all_reduce", &Communicator::all_reduce, py::arg("send"), py::arg("recv") = py::none(),
           py::arg("op") = "sum",
           "Reduces `send` across ranks into `recv` (into `send` when None) with op 'sum', "
           "'prod', 'min', 'max' or 'avg'; returns the result tensor.")
      .def("all_gather", &Communicator::all_gather, py::arg("send"), py::arg("recv"),
           "Every rank's `send`, in rank order, into `recv` (nranks times its elements); returns "
           "recv.")
      .def("reduce_scatter", &Communicator::reduce_scatter, py::arg("send"), py::arg("recv"),
           py::arg("op") = "sum",
           "Reduces `send` across ranks; rank r receives share r (send's elements / nranks) in "
           "`recv`; returns recv.")
      .def("broadcast", &Communicator::broadcast, py::arg("send"), py::arg("recv") = py::none(),
           py::kw_only(), py::arg("root") = 0,
           "Rank `root`'s `send` into every rank's `recv` (into `send` when None); returns it.")
      .def("send", &Communicator::send, py::arg("tensor"), py::arg("peer"),
           "Sends `tensor` to rank `peer` (pair it with peer's recv in a group when both ranks "
           "also receive).")
      .def("recv", &Communicator::recv, py::arg("tensor"), py::arg("peer"),
           "Receives from rank `peer` into `tensor`; returns it.")
      .def("async_error", &Communicator::async_error,
           "None while healthy; else the omnirt.Error that broke it (never waits).")
      .def("close", &Communicator::close,
           "Destroys it after its enqueued work (idempotent); raises a failure of that work.")
      .def_property_readonly("closed", &Communicator::closed)
      .def_property_readonly("rank", &Communicator::rank)
      .def_property_readonly("nranks", &Communicator::nranks)
      .def_property_readonly("device", &Communicator::device)
      .def_property_readonly("backend", &Communicator::backend, "Name of its backend.")
      .def("__enter__", &enter<Communicator>, py::return_value_policy::reference)
      .def("__exit__", [](Communicator& self, const py::args&) { self.close(); })
      .def("__repr__", [](const Communicator& self) {
        return "omnirt.Communicator(rank=" + std::to_string(self.rank()) +
               ", nranks=" + std::to_string(self.nranks()) +
               ", device=" + std::to_string(self.device()) + (self.closed() ? ", closed)" : ")");
      });

  m.def("comm_create", &comm_create, py::arg("state"), py::arg("store"), py::arg("rank"),
        py::arg("nranks"), py::arg("device"), py::arg("key_prefix"), py::arg("timeout_ms"));
  m.def("comm_create_local", &comm_create_local, py::arg("state"), py::arg("devices"));
  m.def("collectives_library", &collectives_library, py::arg("state"));
  m.def("group_start", &group_start, py::arg("state"));
  m.def("group_end", &group_end, py::arg("state"));
}

}  // namespace omnirt_py
