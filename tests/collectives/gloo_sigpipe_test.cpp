// The gloo library's entries block SIGPIPE in their threads (and the threads
// they start) so that writing to a dead peer fails the write instead of
// ending the process. Each case runs in a child process with SIGPIPE's
// default action, which is what would kill it.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "rank_processes.h"
#include "sigpipe_blocked.h"

namespace omnirt_test {
namespace {

using omnirt::cpu::gloo_lib::SigpipeBlocked;

constexpr auto kLimit = std::chrono::milliseconds(20000);

bool sigpipe_in(int (*query)(sigset_t*)) {
  sigset_t set;
  return query(&set) == 0 && sigismember(&set, SIGPIPE) == 1;
}
int blocked_signals(sigset_t* set) { return pthread_sigmask(SIG_BLOCK, nullptr, set); }

// "" when writing to a pipe nobody reads fails with EPIPE.
std::string write_to_a_closed_pipe() {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  close(fds[0]);
  const ssize_t n = write(fds[1], "x", 1);
  const int error = errno;
  close(fds[1]);
  if (n != -1 || error != EPIPE) return "write gave " + std::to_string(n) + " (" + strerror(error) + ")";
  return "";
}

std::string in_a_child(const std::function<std::string()>& body) {
  return failures_of(run_ranks(1, [&](int) { return body(); }, kLimit));
}

TEST(GlooSigpipe, AWriteToADeadPeerFailsAndNothingIsLeftBehind) {
  EXPECT_EQ(in_a_child([] {
    std::string why;
    {
      const SigpipeBlocked blocked;
      why = write_to_a_closed_pipe();
    }
    if (!why.empty()) return why;
    if (sigpipe_in(blocked_signals)) return std::string("SIGPIPE is still blocked afterwards");
    if (sigpipe_in(sigpending)) return std::string("a SIGPIPE is left pending");
    return std::string();
  }), "");
}

TEST(GlooSigpipe, ThreadsStartedMeanwhileKeepItBlocked) {
  EXPECT_EQ(in_a_child([] {
    std::string why;
    std::thread io_thread;  // like gloo's I/O thread: started by an entry, writing later
    {
      const SigpipeBlocked blocked;
      io_thread = std::thread([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        why = write_to_a_closed_pipe();
      });
    }
    io_thread.join();
    return why;
  }), "");
}

TEST(GlooSigpipe, AThreadThatBlockedItAlreadyKeepsItsPendingSignal) {
  EXPECT_EQ(in_a_child([] {
    sigset_t sigpipe;
    sigemptyset(&sigpipe);
    sigaddset(&sigpipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &sigpipe, nullptr);
    std::string why;
    {
      const SigpipeBlocked blocked;
      why = write_to_a_closed_pipe();
    }
    if (!why.empty()) return why;
    if (!sigpipe_in(blocked_signals)) return std::string("the thread's own block was lifted");
    if (!sigpipe_in(sigpending)) return std::string("the thread's pending SIGPIPE was taken");
    return std::string();
  }), "");
}

}  // namespace
}  // namespace omnirt_test
