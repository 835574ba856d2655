// Collectives issued between group_start and group_end, launched together at
// group_end (NCCL's group semantics): the operations of each communicator run
// in issue order on a thread of their own, so that several local ranks
// driven from one thread, or a send and a receive, meet instead of waiting
// for each other.
//
// Streams: the group runs once every stream it uses has reached it in order
// (each gets a task that waits there), and that work completes in stream
// order; operations on NULL make group_end itself wait for the group, after
// the default stream's earlier work.
#ifndef OMNIRT_PLUGINS_CPU_COLLECTIVES_CPU_GROUP_H_
#define OMNIRT_PLUGINS_CPU_COLLECTIVES_CPU_GROUP_H_

#include <memory>
#include <vector>

#include "cpu_comm.h"
#include "cpu_stream.h"

namespace omnirt::cpu {

/// One issued operation: its communicator, and its stream (null: NULL).
struct IssuedOp {
  std::shared_ptr<CpuComm> comm;
  omnirt_cpu_gloo_op op;
  std::shared_ptr<CpuStream> stream;
};

/// Launches `ops` as one group. Throws the group's first failure when it ran
/// synchronously (some operation on NULL); failures on streams stay with
/// their communicators (comm_get_async_error).
void launch_group(std::vector<IssuedOp> ops, CpuStream& default_stream);

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_COLLECTIVES_CPU_GROUP_H_
