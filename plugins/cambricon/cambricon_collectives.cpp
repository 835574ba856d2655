// Collectives of the cambricon backend: CNCL (cncl_library.h). Communicators
// of one rank meet through the embedder's store, where rank 0 publishes CNCL's
// clique id; local ones come from one cnclInitComms. Collectives are enqueued
// on the CNRT queue given (NULL: the device's default queue).
//
// dtypes: CNCL's own, bool as u8 (sum and max are "or", prod and min "and");
// CNCL has no f64: it moves as 64-bit integers and does not reduce
// (NOT_SUPPORTED), and no average: avg is NOT_SUPPORTED. Time limits: the
// rendezvous is bounded by the communicator's; CNCL bounds the rest itself and
// reports a lost peer as an asynchronous error (comm_get_async_error).
#include <cstring>
#include <memory>
#include <vector>

#include "cambricon_backend.h"
#include "omnirt_plugin_common/rendezvous.h"

namespace omnirt::cambricon {
namespace {

using plugin_common::Collective;
using plugin_common::CollectiveKind;

[[noreturn]] void refuse(const Collective& c, const std::string& why) {
  plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED,
               std::string("cambricon: ") + collective_name(c.kind) + " " + why + " is not supported: CNCL has no " +
                   (c.dtype == OMNIRT_DTYPE_F64 ? "64-bit float" : "average"));
}

cnclDataType_t cncl_type(const Collective& c) {
  switch (c.dtype) {
    case OMNIRT_DTYPE_F32: return cnclFloat32;
    case OMNIRT_DTYPE_F16: return cnclFloat16;
    case OMNIRT_DTYPE_BF16: return cnclBfloat16;
    case OMNIRT_DTYPE_F64:
      if (c.reduces()) refuse(c, "of f64");
      return cnclInt64;  // moved as its bytes
    case OMNIRT_DTYPE_I8: return cnclInt8;
    case OMNIRT_DTYPE_I16: return cnclInt16;
    case OMNIRT_DTYPE_I32: return cnclInt32;
    case OMNIRT_DTYPE_I64: return cnclInt64;
    default: return cnclUint8;  // u8, bool
  }
}

cnclReduceOp_t cncl_reduction(const Collective& c) {
  const int32_t op = c.dtype == OMNIRT_DTYPE_BOOL ? plugin_common::bool_as_u8_reduction(c.op) : c.op;
  switch (op) {
    case OMNIRT_REDUCE_PROD: return cnclProd;
    case OMNIRT_REDUCE_MIN: return cnclMin;
    case OMNIRT_REDUCE_MAX: return cnclMax;
    case OMNIRT_REDUCE_AVG: refuse(c, "with avg");
    default: return cnclSum;
  }
}

}  // namespace

omnirt_comm* CambriconBackend::comm_create(const omnirt_comm_create_args& args) {
  CnrtRuntime& rt = runtime();
  const CnclSymbols& cncl = cncl_.get();
  const plugin_common::Rendezvous rendezvous("cambricon", args);
  rendezvous.arrive();
  auto scope = rt.on_device(args.device);
  std::vector<char> clique(sizeof(cnclCliqueId));
  if (args.rank == 0) cncl_.check(cncl.cnclGetCliqueId(reinterpret_cast<cnclCliqueId_t>(clique.data())), "cnclGetCliqueId");
  clique = rendezvous.share_from(0, "cncl/clique_id", clique);
  if (clique.size() != sizeof(cnclCliqueId)) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, "cambricon: the store holds " + std::to_string(clique.size()) +
                                                     " bytes under '" + rendezvous.key("cncl/clique_id") +
                                                     "', not a CNCL clique id (key prefix reused?)");
  }
  cnclCliqueId id;
  std::memcpy(&id, clique.data(), sizeof id);
  cnclComm_t handle = nullptr;
  const int device = args.device;
  const int rank = args.rank;
  cncl_.check(cncl.cnclInitComms(&handle, 1, &device, &rank, args.nranks, &id), "cnclInitComms");
  return comms_.add(std::make_shared<CnclCommunicator>(CnclCommunicator{handle, args.device, args.rank, args.nranks}));
}

void CambriconBackend::comm_create_local(const int32_t* devices, size_t num_devices, omnirt_comm** comms) {
  runtime();
  const CnclSymbols& cncl = cncl_.get();
  const auto nranks = static_cast<int>(num_devices);
  std::vector<int> device_list(devices, devices + num_devices);
  std::vector<int> rank_list(num_devices);
  for (int rank = 0; rank < nranks; ++rank) rank_list[size_t(rank)] = rank;
  std::vector<cnclComm_t> handles(num_devices, nullptr);
  // No clique id: CNCL makes one, for communicators of this process only.
  cncl_.check(cncl.cnclInitComms(handles.data(), nranks, device_list.data(), rank_list.data(), nranks, nullptr),
              "cnclInitComms");
  for (int rank = 0; rank < nranks; ++rank) {
    comms[rank] = comms_.add(std::make_shared<CnclCommunicator>(
        CnclCommunicator{handles[size_t(rank)], device_list[size_t(rank)], rank, nranks}));
  }
}

void CambriconBackend::comm_destroy(omnirt_comm* comm) {
  if (comm == nullptr) return;
  CnrtRuntime& rt = runtime();
  const auto communicator = comms_.remove(comm);
  auto scope = rt.on_device(communicator->device);
  const cnclResult_t rc = cncl_.get().cnclFreeComm(communicator->handle);
  if (rc != CNCL_RET_SUCCESS) comms_.restore(comm, communicator);
  cncl_.check(rc, "cnclFreeComm");
}

void CambriconBackend::comm_get_async_error(omnirt_comm* comm) {
  const auto communicator = comms_.find(comm);
  const CnclSymbols& cncl = cncl_.get();
  if (cncl.cnclGetCommAsyncError == nullptr) return;  // this CNCL cannot tell: none known
  const cnclResult_t state = cncl.cnclGetCommAsyncError(communicator->handle);
  if (state == CNCL_RET_ASYNC_IN_PROGRESS) return;  // still running, not failed
  cncl_.check(state, "a collective of this communicator (asynchronous error)");
}

void CambriconBackend::collective(omnirt_comm* handle, const Collective& c, omnirt_stream* stream) {
  const auto comm = comms_.find(handle);
  plugin_common::check_collective("cambricon", c, comm->nranks, comm->rank);
  const cnclDataType_t type = cncl_type(c);
  const cnclReduceOp_t op = c.reduces() ? cncl_reduction(c) : cnclSum;
  CnrtRuntime& rt = runtime();
  const CnclSymbols& cncl = cncl_.get();
  const auto queue = find_queue(stream);
  if (queue != nullptr && queue->device != comm->device) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, "cambricon: a stream of device " + std::to_string(queue->device) +
                                                     " for a communicator on device " + std::to_string(comm->device));
  }
  const cnrtQueue_t q = queue != nullptr ? queue->handle : nullptr;
  auto scope = rt.on_device(comm->device);
  switch (c.kind) {
    case CollectiveKind::kAllReduce:
      return cncl_.check(cncl.cnclAllReduce(c.send, c.recv, c.count, type, op, comm->handle, q), "cnclAllReduce");
    case CollectiveKind::kAllGather:
      return cncl_.check(cncl.cnclAllGather(c.send, c.recv, c.count, type, comm->handle, q), "cnclAllGather");
    case CollectiveKind::kReduceScatter:
      return cncl_.check(cncl.cnclReduceScatter(c.send, c.recv, c.count, type, op, comm->handle, q),
                         "cnclReduceScatter");
    case CollectiveKind::kBroadcast:  // only the root's input is read: the others name their output
      return cncl_.check(cncl.cnclBroadcast(comm->rank == c.peer ? c.send : c.recv, c.recv, c.count, type, c.peer,
                                            comm->handle, q),
                         "cnclBroadcast");
    case CollectiveKind::kSend:  // CNCL takes the send buffer as void*, and only reads it
      return cncl_.check(cncl.cnclSend(const_cast<void*>(c.send), c.count, type, c.peer, comm->handle, q), "cnclSend");
    case CollectiveKind::kRecv:
      return cncl_.check(cncl.cnclRecv(c.recv, c.count, type, c.peer, comm->handle, q), "cnclRecv");
  }
}

void CambriconBackend::all_reduce(omnirt_comm* comm, const void* send, void* recv, size_t count,
                                  int32_t dtype, int32_t op, omnirt_stream* stream) {
  collective(comm, {CollectiveKind::kAllReduce, send, recv, count, dtype, op, -1}, stream);
}

void CambriconBackend::all_gather(omnirt_comm* comm, const void* send, void* recv, size_t send_count,
                                  int32_t dtype, omnirt_stream* stream) {
  collective(comm, {CollectiveKind::kAllGather, send, recv, send_count, dtype, 0, -1}, stream);
}

void CambriconBackend::reduce_scatter(omnirt_comm* comm, const void* send, void* recv, size_t recv_count,
                                      int32_t dtype, int32_t op, omnirt_stream* stream) {
  collective(comm, {CollectiveKind::kReduceScatter, send, recv, recv_count, dtype, op, -1}, stream);
}

void CambriconBackend::broadcast(omnirt_comm* comm, const void* send, void* recv, size_t count,
                                 int32_t dtype, int32_t root, omnirt_stream* stream) {
  collective(comm, {CollectiveKind::kBroadcast, send, recv, count, dtype, 0, root}, stream);
}

void CambriconBackend::send(omnirt_comm* comm, const void* buffer, size_t count, int32_t dtype,
                            int32_t peer, omnirt_stream* stream) {
  collective(comm, {CollectiveKind::kSend, buffer, nullptr, count, dtype, 0, peer}, stream);
}

void CambriconBackend::recv(omnirt_comm* comm, void* buffer, size_t count, int32_t dtype,
                            int32_t peer, omnirt_stream* stream) {
  collective(comm, {CollectiveKind::kRecv, nullptr, buffer, count, dtype, 0, peer}, stream);
}

void CambriconBackend::group_start() {
  const CnclSymbols& cncl = cncl_.get();
  if (cncl.cnclGroupStart == nullptr) {
    plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED,
                 "cambricon: groups are not supported: " + cncl_.describe() + " has no cnclGroupStart");
  }
  cncl_.check(cncl.cnclGroupStart(), "cnclGroupStart");
}

void CambriconBackend::group_end() {
  const CnclSymbols& cncl = cncl_.get();
  if (cncl.cnclGroupEnd == nullptr) {
    plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED,
                 "cambricon: groups are not supported: " + cncl_.describe() + " has no cnclGroupEnd");
  }
  cncl_.check(cncl.cnclGroupEnd(), "cnclGroupEnd");
}

std::string CambriconBackend::collectives_library() { return cncl_.describe(); }

}  // namespace omnirt::cambricon
