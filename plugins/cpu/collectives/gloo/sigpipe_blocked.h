// Writing to a TCP connection whose peer has died raises SIGPIPE, and its
// default action ends the process. gloo writes without MSG_NOSIGNAL, so one
// rank's death would kill every rank still sending to it — the survivors must
// instead fail their collective and name the dead rank. The process's SIGPIPE
// disposition belongs to the embedder, so it is left alone: the signal is
// blocked in the threads that write for gloo, where a write then fails with
// EPIPE, which gloo turns into an error.
#ifndef OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_SIGPIPE_BLOCKED_H_
#define OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_SIGPIPE_BLOCKED_H_

#include <signal.h>

namespace omnirt::cpu::gloo_lib {

/// Blocks SIGPIPE in this thread for its lifetime; threads started meanwhile
/// (gloo's I/O thread, the local ranks' threads) inherit the block for good.
/// On leaving, a SIGPIPE this thread raised meanwhile is discarded (it would
/// otherwise be delivered, and kill the process, when the mask is restored).
class SigpipeBlocked {
 public:
  SigpipeBlocked() noexcept;
  ~SigpipeBlocked();
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t previous_mask_;
  bool was_blocked_ = false;  // then a pending SIGPIPE is the thread's own business
};

}  // namespace omnirt::cpu::gloo_lib

#endif  // OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_SIGPIPE_BLOCKED_H_
