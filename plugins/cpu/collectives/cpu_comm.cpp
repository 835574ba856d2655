#include "cpu_comm.h"

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu {
namespace {

using plugin_common::CollectiveKind;

constexpr size_t kMessageCapacity = 2048;

void check(omnirt_status status, const char* message) {
  if (status != OMNIRT_STATUS_OK) plugin::fail(status, message);
}

}  // namespace

CpuComm::CpuComm(const omnirt_cpu_gloo_api& api, omnirt_cpu_gloo_comm* gloo, int32_t rank,
                 int32_t nranks)
    : api_(api),
      gloo_(gloo),
      rank_(rank),
      nranks_(nranks),
      next_send_(new std::atomic<uint64_t>[size_t(nranks)]()),
      next_recv_(new std::atomic<uint64_t>[size_t(nranks)]()) {}

CpuComm::~CpuComm() { api_.comm_destroy(gloo_); }

omnirt_cpu_gloo_op CpuComm::issue(const plugin_common::Collective& c) {
  plugin_common::check_collective("cpu", c, nranks_, rank_);
  omnirt_cpu_gloo_op op{int32_t(c.kind), c.dtype, c.op, c.peer, c.send, c.recv, c.count, 0};
  switch (c.kind) {
    case CollectiveKind::kSend: op.sequence = next_send_[size_t(c.peer)].fetch_add(1); break;
    case CollectiveKind::kRecv: op.sequence = next_recv_[size_t(c.peer)].fetch_add(1); break;
    default: op.sequence = next_collective_.fetch_add(1); break;
  }
  return op;
}

void CpuComm::run(const omnirt_cpu_gloo_op* ops, size_t num_ops) {
  char message[kMessageCapacity] = "";
  check(api_.run(gloo_, ops, num_ops, message, sizeof message), message);
}

void CpuComm::throw_if_failed() {
  char message[kMessageCapacity] = "";
  check(api_.comm_error(gloo_, message, sizeof message), message);
}

void CpuComm::begin_queued() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++queued_;
}

void CpuComm::end_queued() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (--queued_ == 0) idle_.notify_all();
}

void CpuComm::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return queued_ == 0; });
}

}  // namespace omnirt::cpu
