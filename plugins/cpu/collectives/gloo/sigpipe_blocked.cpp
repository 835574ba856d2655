#include "sigpipe_blocked.h"

#include <pthread.h>

#include <ctime>

namespace omnirt::cpu::gloo_lib {
namespace {

sigset_t only_sigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  return set;
}

}  // namespace

SigpipeBlocked::SigpipeBlocked() noexcept {
  const sigset_t sigpipe = only_sigpipe();
  pthread_sigmask(SIG_BLOCK, &sigpipe, &previous_mask_);
  was_blocked_ = sigismember(&previous_mask_, SIGPIPE) == 1;
}

SigpipeBlocked::~SigpipeBlocked() {
  if (was_blocked_) return;
  // sigpending also shows a SIGPIPE sent to the whole process while every
  // thread blocked it; that one is taken too, a rare case left as it is.
  sigset_t pending;
  if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
    const sigset_t sigpipe = only_sigpipe();
    const timespec now{0, 0};
    sigtimedwait(&sigpipe, nullptr, &now);  // takes it without waiting
  }
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

}  // namespace omnirt::cpu::gloo_lib
