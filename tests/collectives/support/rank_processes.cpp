#include "rank_processes.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <exception>

namespace omnirt_test {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void run_child(int rank, const std::function<std::string(int)>& body, int out) {
  std::string report;
  try {
    report = body(rank);
  } catch (const std::exception& e) {
    report = std::string("exception: ") + e.what();
  } catch (...) {
    report = "unknown exception";
  }
  size_t written = 0;
  while (written < report.size()) {
    const ssize_t n = write(out, report.data() + written, report.size() - written);
    if (n <= 0) break;
    written += size_t(n);
  }
  _exit(report.empty() ? 0 : 1);  // no atexit handlers: they belong to the parent
}

}  // namespace

std::vector<RankOutcome> run_ranks(int nranks, const std::function<std::string(int)>& body,
                                   std::chrono::milliseconds limit) {
  std::vector<RankOutcome> outcomes(static_cast<size_t>(nranks));
  std::vector<pid_t> pids(static_cast<size_t>(nranks), -1);
  std::vector<int> pipes(static_cast<size_t>(nranks), -1);
  for (int rank = 0; rank < nranks; ++rank) {
    outcomes[size_t(rank)].rank = rank;
    int fds[2];
    if (pipe(fds) != 0) {
      outcomes[size_t(rank)].report = "pipe failed";
      continue;
    }
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      run_child(rank, body, fds[1]);
    }
    close(fds[1]);
    pids[size_t(rank)] = pid;
    pipes[size_t(rank)] = pid > 0 ? fds[0] : (close(fds[0]), -1);
    if (pid < 0) outcomes[size_t(rank)].report = "fork failed";
  }
  // Read every report until its pipe closes (the child exited) or time is up.
  const Clock::time_point deadline = Clock::now() + limit;
  for (;;) {
    std::vector<pollfd> open;
    for (int fd : pipes) {
      if (fd >= 0) open.push_back({fd, POLLIN, 0});
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (open.empty() || left.count() <= 0) break;
    if (poll(open.data(), open.size(), int(left.count())) <= 0) continue;
    for (const pollfd& p : open) {
      if (p.revents == 0) continue;
      const size_t rank = size_t(std::find(pipes.begin(), pipes.end(), p.fd) - pipes.begin());
      char chunk[4096];
      const ssize_t n = read(p.fd, chunk, sizeof chunk);
      if (n > 0) {
        outcomes[rank].report.append(chunk, size_t(n));
      } else {
        close(p.fd);
        pipes[rank] = -1;
      }
    }
  }
  for (int rank = 0; rank < nranks; ++rank) {
    const pid_t pid = pids[size_t(rank)];
    if (pid <= 0) continue;
    RankOutcome& outcome = outcomes[size_t(rank)];
    int status = 0;
    if (pipes[size_t(rank)] >= 0) {  // still running at the limit
      kill(pid, SIGKILL);
      close(pipes[size_t(rank)]);
      outcome.report += "(killed: still running after " + std::to_string(limit.count()) + " ms)";
      waitpid(pid, &status, 0);
      continue;
    }
    waitpid(pid, &status, 0);
    outcome.finished = true;
    if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
    if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  }
  return outcomes;
}

std::string failures_of(const std::vector<RankOutcome>& outcomes) {
  std::string text;
  for (const RankOutcome& o : outcomes) {
    if (o.finished && o.exit_code == 0 && o.report.empty()) continue;
    std::string ending = "exit " + std::to_string(o.exit_code);
    if (o.signal != 0) {
      ending = "killed by signal " + std::to_string(o.signal) + " (" + strsignal(o.signal) + ")";
    }
    text += "rank " + std::to_string(o.rank) + ": " + (o.report.empty() ? ending : o.report) + "\n";
  }
  return text;
}

}  // namespace omnirt_test
