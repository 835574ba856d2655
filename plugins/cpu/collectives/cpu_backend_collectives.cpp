// CpuBackend's collectives slots, forwarded to CpuCollectives (cpu_collectives.h
// has the stream and group semantics).
#include "cpu_backend.h"

namespace omnirt::cpu {

using plugin_common::CollectiveKind;

omnirt_comm* CpuBackend::comm_create(const omnirt_comm_create_args& args) {
  CpuDevice::check_index(args.device);
  return collectives_.create(args);
}

void CpuBackend::comm_create_local(const int32_t* devices, size_t num_devices, omnirt_comm** comms) {
  for (size_t i = 0; i < num_devices; ++i) CpuDevice::check_index(devices[i]);
  collectives_.create_local(num_devices, comms);
}

void CpuBackend::comm_destroy(omnirt_comm* comm) { collectives_.destroy(comm); }

void CpuBackend::comm_get_async_error(omnirt_comm* comm) { collectives_.throw_if_failed(comm); }

void CpuBackend::all_reduce(omnirt_comm* comm, const void* send, void* recv, size_t count,
                            int32_t dtype, int32_t op, omnirt_stream* stream) {
  collectives_.submit(comm, {CollectiveKind::kAllReduce, send, recv, count, dtype, op, -1},
                      stream_for_collective(stream));
}

void CpuBackend::all_gather(omnirt_comm* comm, const void* send, void* recv, size_t send_count,
                            int32_t dtype, omnirt_stream* stream) {
  collectives_.submit(comm,
                      {CollectiveKind::kAllGather, send, recv, send_count, dtype, 0, -1},
                      stream_for_collective(stream));
}

void CpuBackend::reduce_scatter(omnirt_comm* comm, const void* send, void* recv, size_t recv_count,
                                int32_t dtype, int32_t op, omnirt_stream* stream) {
  collectives_.submit(
      comm, {CollectiveKind::kReduceScatter, send, recv, recv_count, dtype, op, -1},
      stream_for_collective(stream));
}

void CpuBackend::broadcast(omnirt_comm* comm, const void* send, void* recv, size_t count,
                           int32_t dtype, int32_t root, omnirt_stream* stream) {
  collectives_.submit(comm, {CollectiveKind::kBroadcast, send, recv, count, dtype, 0, root},
                      stream_for_collective(stream));
}

void CpuBackend::send(omnirt_comm* comm, const void* buffer, size_t count, int32_t dtype,
                      int32_t peer, omnirt_stream* stream) {
  collectives_.submit(comm, {CollectiveKind::kSend, buffer, nullptr, count, dtype, 0, peer},
                      stream_for_collective(stream));
}

void CpuBackend::recv(omnirt_comm* comm, void* buffer, size_t count, int32_t dtype, int32_t peer,
                      omnirt_stream* stream) {
  collectives_.submit(comm, {CollectiveKind::kRecv, nullptr, buffer, count, dtype, 0, peer},
                      stream_for_collective(stream));
}

void CpuBackend::group_start() { collectives_.group_start(); }

void CpuBackend::group_end() { collectives_.group_end(); }

std::string CpuBackend::collectives_library() { return collectives_.library(); }

std::shared_ptr<CpuStream> CpuBackend::stream_for_collective(omnirt_stream* stream) const {
  return is_default(stream) ? nullptr : streams_.find(stream);
}

}  // namespace omnirt::cpu
