// Collectives of the ascend backend: HCCL (hccl_library.h). Communicators of
// one rank meet through the embedder's store, where rank 0 publishes HCCL's
// root info; local ones come from HcclCommInitAll. Collectives are enqueued
// on the AscendCL stream given (NULL: the device's default stream).
//
// dtypes: HCCL's own, bool as u8 (sum and max are "or", prod and min "and").
// HCCL has no average: avg is NOT_SUPPORTED. Broadcast is in place in HCCL:
// the root's input is first copied into its output on the stream. Time
// limits: the rendezvous is bounded by the communicator's; HCCL bounds
// connecting (HCCL_CONNECT_TIMEOUT) and execution (HCCL_EXEC_TIMEOUT) itself,
// and reports a late peer as an asynchronous error (comm_get_async_error).
#include <memory>
#include <vector>

#include "ascend_backend.h"
#include "omnirt_plugin_common/rendezvous.h"

namespace omnirt::ascend {
namespace {

using plugin_common::Collective;
using plugin_common::CollectiveKind;

HcclDataType hccl_type(int32_t dtype) {
  switch (dtype) {
    case OMNIRT_DTYPE_F32: return HCCL_DATA_TYPE_FP32;
    case OMNIRT_DTYPE_F16: return HCCL_DATA_TYPE_FP16;
    case OMNIRT_DTYPE_BF16: return HCCL_DATA_TYPE_BFP16;
    case OMNIRT_DTYPE_F64: return HCCL_DATA_TYPE_FP64;
    case OMNIRT_DTYPE_I8: return HCCL_DATA_TYPE_INT8;
    case OMNIRT_DTYPE_I16: return HCCL_DATA_TYPE_INT16;
    case OMNIRT_DTYPE_I32: return HCCL_DATA_TYPE_INT32;
    case OMNIRT_DTYPE_I64: return HCCL_DATA_TYPE_INT64;
    default: return HCCL_DATA_TYPE_UINT8;  // u8, bool
  }
}

HcclReduceOp hccl_reduction(const Collective& c) {
  const int32_t op = c.dtype == OMNIRT_DTYPE_BOOL ? plugin_common::bool_as_u8_reduction(c.op) : c.op;
  switch (op) {
    case OMNIRT_REDUCE_PROD: return HCCL_REDUCE_PROD;
    case OMNIRT_REDUCE_MIN: return HCCL_REDUCE_MIN;
    case OMNIRT_REDUCE_MAX: return HCCL_REDUCE_MAX;
    case OMNIRT_REDUCE_AVG:
      plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED,
                   std::string("ascend: ") + collective_name(c.kind) + " with avg is not supported: HCCL has no average");
    default: return HCCL_REDUCE_SUM;
  }
}

}  // namespace

omnirt_comm* AscendBackend::comm_create(const omnirt_comm_create_args& args) {
  AclRuntime& rt = runtime();
  const HcclSymbols& hccl = hccl_.get();
  const plugin_common::Rendezvous rendezvous("ascend", args);
  rendezvous.arrive();
  auto scope = rt.on_device(args.device);
  std::vector<char> root(kHcclRootInfoBytes);
  if (args.rank == 0) {
    hccl_.check(hccl.HcclGetRootInfo(reinterpret_cast<HcclRootInfo*>(root.data())), "HcclGetRootInfo");
  }
  root = rendezvous.share_from(0, "hccl/root_info", root);
  if (root.size() != kHcclRootInfoBytes) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, "ascend: the store holds " + std::to_string(root.size()) +
                                                     " bytes under '" + rendezvous.key("hccl/root_info") +
                                                     "', not HCCL's root info (key prefix reused?)");
  }
  HcclComm handle = nullptr;
  hccl_.check(hccl.HcclCommInitRootInfo(uint32_t(args.nranks), reinterpret_cast<const HcclRootInfo*>(root.data()),
                                        uint32_t(args.rank), &handle),
              "HcclCommInitRootInfo");
  return comms_.add(std::make_shared<HcclCommunicator>(HcclCommunicator{handle, args.device, args.rank, args.nranks}));
}

void AscendBackend::comm_create_local(const int32_t* devices, size_t num_devices, omnirt_comm** comms) {
  runtime();
  const HcclSymbols& hccl = hccl_.get();
  std::vector<int32_t> list(devices, devices + num_devices);
  std::vector<HcclComm> handles(num_devices, nullptr);
  hccl_.check(hccl.HcclCommInitAll(uint32_t(num_devices), list.data(), handles.data()), "HcclCommInitAll");
  const auto nranks = static_cast<int32_t>(num_devices);
  for (int32_t rank = 0; rank < nranks; ++rank) {
    comms[rank] = comms_.add(std::make_shared<HcclCommunicator>(
        HcclCommunicator{handles[size_t(rank)], list[size_t(rank)], rank, nranks}));
  }
}

void AscendBackend::comm_destroy(omnirt_comm* comm) {
  if (comm == nullptr) return;
  AclRuntime& rt = runtime();
  const auto communicator = comms_.remove(comm);
  auto scope = rt.on_device(communicator->device);
  const HcclResult rc = hccl_.get().HcclCommDestroy(communicator->handle);
  if (rc != HCCL_SUCCESS) comms_.restore(comm, communicator);
  hccl_.check(rc, "HcclCommDestroy");
}

void AscendBackend::comm_get_async_error(omnirt_comm* comm) {
  const auto communicator = comms_.find(comm);
  const HcclSymbols& hccl = hccl_.get();
  if (hccl.HcclGetCommAsyncError == nullptr) return;  // this HCCL cannot tell: none known
  HcclResult error = HCCL_SUCCESS;
  hccl_.check(hccl.HcclGetCommAsyncError(communicator->handle, &error), "HcclGetCommAsyncError");
  hccl_.check(error, "a collective of this communicator (asynchronous error)");
}

void AscendBackend::collective(omnirt_comm* handle, const Collective& c, omnirt_stream* stream) {
  const auto comm = comms_.find(handle);
  plugin_common::check_collective("ascend", c, comm->nranks, comm->rank);
  const HcclDataType type = hccl_type(c.dtype);
  const HcclReduceOp op = c.reduces() ? hccl_reduction(c) : HCCL_REDUCE_SUM;
  AclRuntime& rt = runtime();
  const HcclSymbols& hccl = hccl_.get();
  const auto queue = find_stream(stream);
  if (queue != nullptr && queue->device != comm->device) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, "ascend: a stream of device " + std::to_string(queue->device) +
                                                     " for a communicator on device " + std::to_string(comm->device));
  }
  const aclrtStream s = queue != nullptr ? queue->handle : nullptr;
  auto scope = rt.on_device(comm->device);
  void* send = const_cast<void*>(c.send);  // HCCL takes inputs as void*, and only reads them
  switch (c.kind) {
    case CollectiveKind::kAllReduce:
      return hccl_.check(hccl.HcclAllReduce(send, c.recv, c.count, type, op, comm->handle, s), "HcclAllReduce");
    case CollectiveKind::kAllGather:
      return hccl_.check(hccl.HcclAllGather(send, c.recv, c.count, type, comm->handle, s), "HcclAllGather");
    case CollectiveKind::kReduceScatter:
      return hccl_.check(hccl.HcclReduceScatter(send, c.recv, c.count, type, op, comm->handle, s),
                         "HcclReduceScatter");
    case CollectiveKind::kBroadcast:
      if (comm->rank == c.peer && c.send != c.recv && c.count > 0) {
        AclRuntime& copier = runtime_for(OMNIRT_FEATURE_ASYNC_COPY, "broadcast from a separate buffer");
        const size_t bytes = c.count * plugin_common::dtype_size(c.dtype);
        rt.check(copier.api().aclrtMemcpyAsync(c.recv, bytes, c.send, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, s),
                 "aclrtMemcpyAsync");
      }
      return hccl_.check(hccl.HcclBroadcast(c.recv, c.count, type, uint32_t(c.peer), comm->handle, s),
                         "HcclBroadcast");
    case CollectiveKind::kSend:
      return hccl_.check(hccl.HcclSend(send, c.count, type, uint32_t(c.peer), comm->handle, s), "HcclSend");
    case CollectiveKind::kRecv:
      return hccl_.check(hccl.HcclRecv(c.recv, c.count, type, uint32_t(c.peer), comm->handle, s), "HcclRecv");
  }
}

void AscendBackend::all_reduce(omnirt_comm* comm, const void* send, void* recv, size_t count,
                               int32_t dtype, int32_t op, omnirt_stream* stream) {
  collective(comm, {CollectiveKind::kAllReduce, send, recv, count, dtype, op, -1}, stream);
}

void AscendBackend::all_gather(omnirt_comm* comm, const void* send, void* recv, size_t send_count,
                               int32_t dtype, omnirt_stream* stream) {
  collective(comm, {CollectiveKind::kAllGather, send, recv, send_count, dtype, 0, -1}, stream);
}

void AscendBackend::reduce_scatter(omnirt_comm* comm, const void* send, void* recv, size_t recv_count,
                                   int32_t dtype, int32_t op, omnirt_stream* stream) {
  collective(comm, {CollectiveKind::kReduceScatter, send, recv, recv_count, dtype, op, -1}, stream);
}

void AscendBackend::broadcast(omnirt_comm* comm, const void* send, void* recv, size_t count,
                              int32_t dtype, int32_t root, omnirt_stream* stream) {
  collective(comm, {CollectiveKind::kBroadcast, send, recv, count, dtype, 0, root}, stream);
}

void AscendBackend::send(omnirt_comm* comm, const void* buffer, size_t count, int32_t dtype,
                         int32_t peer, omnirt_stream* stream) {
  collective(comm, {CollectiveKind::kSend, buffer, nullptr, count, dtype, 0, peer}, stream);
}

void AscendBackend::recv(omnirt_comm* comm, void* buffer, size_t count, int32_t dtype, int32_t peer,
                         omnirt_stream* stream) {
  collective(comm, {CollectiveKind::kRecv, nullptr, buffer, count, dtype, 0, peer}, stream);
}

void AscendBackend::group_start() {
  const HcclSymbols& hccl = hccl_.get();
  if (hccl.HcclGroupStart == nullptr) {
    plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED,
                 "ascend: groups are not supported: " + hccl_.describe() + " has no HcclGroupStart (older CANN)");
  }
  hccl_.check(hccl.HcclGroupStart(), "HcclGroupStart");
}

void AscendBackend::group_end() {
  const HcclSymbols& hccl = hccl_.get();
  if (hccl.HcclGroupEnd == nullptr) {
    plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED,
                 "ascend: groups are not supported: " + hccl_.describe() + " has no HcclGroupEnd (older CANN)");
  }
  hccl_.check(hccl.HcclGroupEnd(), "HcclGroupEnd");
}

std::string AscendBackend::collectives_library() { return hccl_.describe(); }

}  // namespace omnirt::ascend
