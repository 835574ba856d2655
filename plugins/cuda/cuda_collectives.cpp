#include "cuda_collectives.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <vector>

#include "cuda_backend.h"
#include "cuda_device.h"
#include "cuda_stream.h"
#include "omnirt_plugin_common/thread_groups.h"

namespace omnirt::cuda {
namespace {

using plugin_common::Collective;
using plugin_common::CollectiveKind;

// A collective as NCCL takes it.
struct NcclShape {
  ncclDataType_t dtype;
  size_t count;
  ncclRedOp_t op;
};

ncclRedOp_t reduction_of(int32_t op) {
  switch (op) {
    case OMNIRT_REDUCE_PROD: return ncclProd;
    case OMNIRT_REDUCE_MIN: return ncclMin;
    case OMNIRT_REDUCE_MAX: return ncclMax;
    case OMNIRT_REDUCE_AVG: return ncclAvg;
    default: return ncclSum;
  }
}

NcclShape shape_of(const Collective& c) {
  switch (c.dtype) {
    case OMNIRT_DTYPE_F32: return {ncclFloat32, c.count, reduction_of(c.op)};
    case OMNIRT_DTYPE_F16: return {ncclFloat16, c.count, reduction_of(c.op)};
    case OMNIRT_DTYPE_BF16: return {ncclBfloat16, c.count, reduction_of(c.op)};
    case OMNIRT_DTYPE_F64: return {ncclFloat64, c.count, reduction_of(c.op)};
    case OMNIRT_DTYPE_I8: return {ncclInt8, c.count, reduction_of(c.op)};
    case OMNIRT_DTYPE_I32: return {ncclInt32, c.count, reduction_of(c.op)};
    case OMNIRT_DTYPE_I64: return {ncclInt64, c.count, reduction_of(c.op)};
    case OMNIRT_DTYPE_U8: return {ncclUint8, c.count, reduction_of(c.op)};
    case OMNIRT_DTYPE_BOOL: return {ncclUint8, c.count, reduction_of(plugin_common::bool_as_u8_reduction(c.op))};
    default:  // i16: NCCL has no 16-bit integer; its bytes move all the same
      if (c.reduces()) {
        plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED, std::string("cuda: ") + collective_name(c.kind) +
                                                      " of i16 is not supported: NCCL has no 16-bit integer type");
      }
      return {ncclInt8, c.count * 2, ncclSum};
  }
}

using Groups = plugin_common::ThreadGroups<CudaCollectives::Issued>;

}  // namespace

CudaCollectives::CudaCollectives(const std::string& nccl_library) : nccl_(nccl_library) {}

omnirt_comm* CudaCollectives::create(const Symbols& cuda, const omnirt_comm_create_args& args) {
  std::shared_ptr<NcclComm> comm = NcclComm::create(nccl_, cuda, args);
  watchdog_.watch(comm);
  return comms_.add(std::move(comm));
}

void CudaCollectives::create_local(const Symbols& cuda, const int32_t* devices, size_t count,
                                   omnirt_comm** comms) {
  std::vector<std::shared_ptr<NcclComm>> made = NcclComm::create_local(nccl_, cuda, devices, count);
  for (size_t i = 0; i < made.size(); ++i) {
    watchdog_.watch(made[i]);
    comms[i] = comms_.add(std::move(made[i]));
  }
}

void CudaCollectives::destroy(omnirt_comm* comm) {
  if (comm != nullptr) comms_.remove(comm)->close();
}

void CudaCollectives::throw_if_failed(omnirt_comm* comm) { comms_.find(comm)->throw_if_failed(); }

void CudaCollectives::submit(const Symbols& cuda, omnirt_comm* handle, const Collective& c,
                             omnirt_stream* stream) {
  const std::shared_ptr<NcclComm> comm = comms_.find(handle);
  plugin_common::check_collective("cuda", c, comm->nranks(), comm->rank());
  if (stream != nullptr && stream_of(stream)->device != comm->device()) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 "cuda: " + std::string(collective_name(c.kind)) + " on a stream of device " +
                     std::to_string(stream_of(stream)->device) + " for a communicator on device " +
                     std::to_string(comm->device()));
  }
  NcclShape s = shape_of(c);
  // With one rank an average is the input itself: NCCL before 2.29.7 runs it
  // through a kernel that leaves the last count % blocks elements unwritten
  // (NVIDIA/nccl#1950; seen here on 2.28.9), where a sum is a plain copy.
  if (comm->nranks() == 1 && s.op == ncclAvg) s.op = ncclSum;
  const cudaStream_t cs = cuda_stream(stream);
  const NcclSymbols& api = nccl_.get();
  const uint64_t sequence = comm->next_sequence();
  // In a group NCCL launches at group_end: the communicator stays pinned, and
  // the marker follows, until then.
  std::vector<Issued>* group = Groups::entries(this);
  if (group != nullptr) {
    const bool first = std::none_of(group->begin(), group->end(), [&](const Issued& i) { return i.comm == comm; });
    group->push_back({comm, cs, c, sequence, first ? comm->pin() : nullptr, false});
  }
  DeviceGuard guard(cuda, comm->device());
  switch (c.kind) {
    case CollectiveKind::kAllReduce:
      comm->call("ncclAllReduce", [&](ncclComm_t h) {
        return api.ncclAllReduce(c.send, c.recv, s.count, s.dtype, s.op, h, cs);
      });
      break;
    case CollectiveKind::kAllGather:
      comm->call("ncclAllGather", [&](ncclComm_t h) {
        return api.ncclAllGather(c.send, c.recv, s.count, s.dtype, h, cs);
      });
      break;
    case CollectiveKind::kReduceScatter:
      comm->call("ncclReduceScatter", [&](ncclComm_t h) {
        return api.ncclReduceScatter(c.send, c.recv, s.count, s.dtype, s.op, h, cs);
      });
      break;
    case CollectiveKind::kBroadcast:
      comm->call("ncclBroadcast", [&](ncclComm_t h) {
        // Only the root's input is read: the others name their output.
        return api.ncclBroadcast(comm->rank() == c.peer ? c.send : c.recv, c.recv, s.count, s.dtype, c.peer, h, cs);
      });
      break;
    case CollectiveKind::kSend:
      comm->call("ncclSend", [&](ncclComm_t h) { return api.ncclSend(c.send, s.count, s.dtype, c.peer, h, cs); });
      break;
    case CollectiveKind::kRecv:
      comm->call("ncclRecv", [&](ncclComm_t h) { return api.ncclRecv(c.recv, s.count, s.dtype, c.peer, h, cs); });
      break;
  }
  if (group != nullptr) {
    group->back().enqueued = true;
  } else {
    comm->note(cs, c, sequence);
  }
}

void CudaCollectives::group_start() {
  nccl_.check(nccl_.get().ncclGroupStart(), "ncclGroupStart");
  Groups::start(this);
}

void CudaCollectives::group_end() {
  std::optional<std::vector<Issued>> issued = Groups::end(this, "cuda");
  const ncclResult_t ended = nccl_.get().ncclGroupEnd();
  if (!issued) {  // an inner group: NCCL launches at the outermost
    if (ended != ncclInProgress) nccl_.check(ended, "ncclGroupEnd");
    return;
  }
  std::exception_ptr failure;
  try {
    if (ended != ncclInProgress) nccl_.check(ended, "ncclGroupEnd");
    // Non-blocking communicators finish launching after ncclGroupEnd returns.
    for (const Issued& i : *issued) {
      if (i.pinned != nullptr) i.comm->wait_ready(i.pinned, "ncclGroupEnd");
    }
    for (const Issued& i : *issued) {
      if (i.enqueued) i.comm->note(i.stream, i.collective, i.sequence);
    }
  } catch (...) {
    failure = std::current_exception();
  }
  for (const Issued& i : *issued) {
    if (i.pinned != nullptr) i.comm->unpin();
  }
  if (failure) std::rethrow_exception(failure);
}

// CudaBackend's slots.

omnirt_comm* CudaBackend::comm_create(const omnirt_comm_create_args& args) {
  return collectives_.create(cuda(), args);  // the host checked args.device
}

void CudaBackend::comm_create_local(const int32_t* devices, size_t num_devices, omnirt_comm** comms) {
  collectives_.create_local(cuda(), devices, num_devices, comms);
}

void CudaBackend::comm_destroy(omnirt_comm* comm) { collectives_.destroy(comm); }

void CudaBackend::comm_get_async_error(omnirt_comm* comm) { collectives_.throw_if_failed(comm); }

void CudaBackend::all_reduce(omnirt_comm* comm, const void* send, void* recv, size_t count,
                             int32_t dtype, int32_t op, omnirt_stream* stream) {
  collectives_.submit(cuda(), comm, {CollectiveKind::kAllReduce, send, recv, count, dtype, op, -1}, stream);
}

void CudaBackend::all_gather(omnirt_comm* comm, const void* send, void* recv, size_t send_count,
                             int32_t dtype, omnirt_stream* stream) {
  collectives_.submit(cuda(), comm, {CollectiveKind::kAllGather, send, recv, send_count, dtype, 0, -1},
                      stream);
}

void CudaBackend::reduce_scatter(omnirt_comm* comm, const void* send, void* recv, size_t recv_count,
                                 int32_t dtype, int32_t op, omnirt_stream* stream) {
  collectives_.submit(cuda(), comm, {CollectiveKind::kReduceScatter, send, recv, recv_count, dtype, op, -1},
                      stream);
}

void CudaBackend::broadcast(omnirt_comm* comm, const void* send, void* recv, size_t count,
                            int32_t dtype, int32_t root, omnirt_stream* stream) {
  collectives_.submit(cuda(), comm, {CollectiveKind::kBroadcast, send, recv, count, dtype, 0, root}, stream);
}

void CudaBackend::send(omnirt_comm* comm, const void* buffer, size_t count, int32_t dtype,
                       int32_t peer, omnirt_stream* stream) {
  collectives_.submit(cuda(), comm, {CollectiveKind::kSend, buffer, nullptr, count, dtype, 0, peer}, stream);
}

void CudaBackend::recv(omnirt_comm* comm, void* buffer, size_t count, int32_t dtype, int32_t peer,
                       omnirt_stream* stream) {
  collectives_.submit(cuda(), comm, {CollectiveKind::kRecv, nullptr, buffer, count, dtype, 0, peer}, stream);
}

void CudaBackend::group_start() { collectives_.group_start(); }

void CudaBackend::group_end() { collectives_.group_end(); }

std::string CudaBackend::collectives_library() { return collectives_.library(); }

}  // namespace omnirt::cuda
