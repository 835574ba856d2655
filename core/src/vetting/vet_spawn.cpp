#include "vetting/vet_spawn.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

#include "plugin_text.h"
#include "stopwatch.h"
#include "vetting/unique_fd.h"
#include "vetting/vet_protocol.h"

extern char** environ;

namespace omnirt::vetting {
namespace {

using Clock = std::chrono::steady_clock;

/// How long a child killed with SIGKILL may take to be reaped before a
/// background thread takes over the wait.
constexpr auto kReapGrace = std::chrono::seconds(2);

/// A running child and what it reported so far.
struct Child {
  size_t job = 0;
  pid_t pid = -1;
  UniqueFd report;
  ReportReader reader;
  Stopwatch watch;
  Clock::time_point deadline;
  bool report_closed = false;
};

// The spawn attributes: its own process group (so a time-out kills whatever
// the plugin started too), no blocked signals, default dispositions.
class SpawnAttributes {
 public:
  SpawnAttributes() {
    posix_spawnattr_init(&attr_);
    sigset_t signals;
    sigemptyset(&signals);
    posix_spawnattr_setsigmask(&attr_, &signals);
    sigfillset(&signals);
    sigdelset(&signals, SIGKILL);
    sigdelset(&signals, SIGSTOP);
    posix_spawnattr_setsigdefault(&attr_, &signals);
    posix_spawnattr_setpgroup(&attr_, 0);
    posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  }
  ~SpawnAttributes() { posix_spawnattr_destroy(&attr_); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  const posix_spawnattr_t* get() const noexcept { return &attr_; }

 private:
  posix_spawnattr_t attr_;
};

// The child's descriptors: the report pipe on kReportFd, /dev/null on 0-2,
// nothing else of the embedder's.
class SpawnFiles {
 public:
  explicit SpawnFiles(int report_write) {
    posix_spawn_file_actions_init(&actions_);
    // First, before 0-2 are reopened: the pipe may itself be one of them.
    posix_spawn_file_actions_adddup2(&actions_, report_write, kReportFd);
    posix_spawn_file_actions_addopen(&actions_, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions_, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions_, 1, 2);
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
    posix_spawn_file_actions_addclosefrom_np(&actions_, kReportFd + 1);
#endif
  }
  ~SpawnFiles() { posix_spawn_file_actions_destroy(&actions_); }
  SpawnFiles(const SpawnFiles&) = delete;
  SpawnFiles& operator=(const SpawnFiles&) = delete;
  const posix_spawn_file_actions_t* get() const noexcept { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

std::string signal_name(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  return abbreviation != nullptr ? fmt::format("SIG{} (signal {})", abbreviation, signal)
                                 : fmt::format("signal {}", signal);
}

// Starts the helper for `job`; on failure returns nothing and sets *problem.
std::optional<Child> spawn_child(const std::string& helper, const VetJob& job, bool empty_environment,
                                 std::string* problem) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) {
    *problem = fmt::format("cannot make a pipe: {}", std::strerror(errno));
    return std::nullopt;
  }
  UniqueFd read_end(ends[0]);
  UniqueFd write_end(ends[1]);
  if (write_end.get() == kReportFd) {
    // dup2 onto itself would keep close-on-exec: move it out of the way.
    write_end = UniqueFd(fcntl(write_end.get(), F_DUPFD_CLOEXEC, kReportFd + 1));
  }
  if (!write_end || fcntl(read_end.get(), F_SETFL, O_NONBLOCK) != 0) {
    *problem = fmt::format("cannot set up the report pipe: {}", std::strerror(errno));
    return std::nullopt;
  }
  std::vector<std::string> arguments = {helper, job.real_path, job.backend_name};
  for (const auto& [key, value] : job.options) {
    arguments.push_back(key);
    arguments.push_back(value);
  }
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  char* no_environment[] = {nullptr};

  const SpawnAttributes attributes;
  const SpawnFiles files(write_end.get());
  Child child;
  const int error = posix_spawn(&child.pid, helper.c_str(), files.get(), attributes.get(), argv.data(),
                                empty_environment ? no_environment : environ);
  if (error != 0) {
    *problem = fmt::format("cannot start the vetting helper '{}': {}", display_path(helper), std::strerror(error));
    return std::nullopt;
  }
  child.report = std::move(read_end);
  return child;
}

// Reads what the child wrote so far; notes when it closed the pipe.
void drain(Child* child) {
  char buffer[512];
  while (!child->report_closed) {
    const ssize_t n = read(child->report.get(), buffer, sizeof buffer);
    if (n > 0) {
      child->reader.feed(std::string_view(buffer, static_cast<size_t>(n)));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) child->report_closed = true;
      return;
    }
  }
}

// Kills the child's process group: the child and whatever it started.
void kill_group(pid_t pid) { kill(-pid, SIGKILL); }

// Reaps a killed child, waiting at most kReapGrace before handing the wait
// to a background thread (a process in uninterruptible sleep dies only when
// its system call returns).
void reap_killed(pid_t pid) {
  const auto give_up = Clock::now() + kReapGrace;
  while (Clock::now() < give_up) {
    const pid_t done = waitpid(pid, nullptr, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::thread([pid] { waitpid(pid, nullptr, 0); }).detach();
}

std::string during(const ReportReader& reader) { return step_name(reader.step()); }

// The verdict of a child that has ended with wait status `status`.
VetRun judge_exit(const Child& child, int status) {
  VetRun run;
  run.vetted = true;
  Verdict& verdict = run.verdict;
  verdict.vet_time_ns = child.watch.elapsed_ns();
  const ReportReader& reader = child.reader;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && reader.done()) {
    verdict.passed = true;
    return run;
  }
  if (reader.step() == 0) {  // nothing loaded yet: the helper failed, not the plugin
    run.vetted = false;
    run.problem = WIFSIGNALED(status)
                      ? fmt::format("the vetting helper died of {} before loading the plugin",
                                    signal_name(WTERMSIG(status)))
                      : fmt::format("the vetting helper exited with status {} before loading the plugin",
                                    WEXITSTATUS(status));
    return run;
  }
  verdict.reached = reader.reached();
  verdict.status = OMNIRT_STATUS_INTERNAL;
  verdict.reason = WIFSIGNALED(status)
                       ? fmt::format("vetting: the plugin crashed the vetting process with {} during {}; "
                                     "not loaded into this process",
                                     signal_name(WTERMSIG(status)), during(reader))
                       : fmt::format("vetting: the plugin ended the vetting process with exit status {} "
                                     "during {}; not loaded into this process",
                                     WEXITSTATUS(status), during(reader));
  return run;
}

// A child whose status someone else took (an embedder that ignores SIGCHLD
// or reaps every child): only its report is left to judge by.
VetRun judge_vanished(const Child& child) {
  VetRun run;
  run.vetted = true;
  run.verdict.vet_time_ns = child.watch.elapsed_ns();
  if (child.reader.done()) {
    run.verdict.passed = true;
    return run;
  }
  run.verdict.reached = child.reader.reached();
  run.verdict.status = OMNIRT_STATUS_INTERNAL;
  run.verdict.reason = fmt::format(
      "vetting: the vetting process ended during {} and its exit status was taken by another waiter "
      "(does the embedder ignore SIGCHLD?); not loaded into this process",
      during(child.reader));
  return run;
}

VetRun judge_timeout(const Child& child, uint32_t time_limit_ms) {
  VetRun run;
  run.vetted = true;
  run.verdict.vet_time_ns = child.watch.elapsed_ns();
  run.verdict.reached = child.reader.reached();
  run.verdict.status = OMNIRT_STATUS_TIMEOUT;
  run.verdict.reason = fmt::format(
      "vetting: the plugin did not finish {} within {} ms (vetting_time_limit_ms); the vetting process was "
      "killed and the plugin not loaded into this process",
      during(child.reader), time_limit_ms);
  return run;
}

// Whether the child has ended: its verdict if so. A child that is done is
// reaped here, after its process group is killed (whatever it started).
std::optional<VetRun> poll_exit(Child* child, uint32_t time_limit_ms) {
  siginfo_t info{};
  const int waited = waitid(P_PID, static_cast<id_t>(child->pid), &info, WEXITED | WNOHANG | WNOWAIT);
  if (waited != 0 && errno == ECHILD) {
    drain(child);
    return judge_vanished(*child);
  }
  if (waited == 0 && info.si_pid == child->pid) {
    kill_group(child->pid);
    int status = 0;
    while (waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
    }
    drain(child);
    return judge_exit(*child, status);
  }
  if (Clock::now() >= child->deadline) {
    kill_group(child->pid);
    reap_killed(child->pid);
    drain(child);
    return judge_timeout(*child, time_limit_ms);
  }
  return std::nullopt;
}

// How long to sleep in poll(): until the nearest deadline, but briefly when
// a child is only left to exit (it said "done" or closed its report; what the
// plugin started may still hold the pipe open).
int poll_timeout_ms(const std::vector<Child>& running) {
  auto wait = std::chrono::milliseconds(1000);
  const auto now = Clock::now();
  for (const Child& child : running) {
    if (child.report_closed || child.reader.done()) return 1;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(child.deadline - now) +
                      std::chrono::milliseconds(1);
    wait = std::min(wait, std::max(left, std::chrono::milliseconds(0)));
  }
  return static_cast<int>(wait.count());
}

}  // namespace

std::vector<VetRun> run_vetting_children(const std::string& helper, const std::vector<VetJob>& jobs,
                                         uint32_t time_limit_ms, bool empty_environment) {
  std::vector<VetRun> runs(jobs.size());
  const size_t parallel = std::max<size_t>(4, std::thread::hardware_concurrency());
  std::vector<Child> running;
  size_t next = 0;
  while (next < jobs.size() || !running.empty()) {
    while (running.size() < parallel && next < jobs.size()) {
      std::string problem;
      std::optional<Child> child = spawn_child(helper, jobs[next], empty_environment, &problem);
      if (child) {
        child->job = next;
        child->deadline = Clock::now() + std::chrono::milliseconds(time_limit_ms);
        running.push_back(std::move(*child));
      } else {
        runs[next].problem = std::move(problem);
      }
      ++next;
    }
    std::vector<pollfd> fds;
    for (const Child& child : running) {
      if (!child.report_closed) fds.push_back({child.report.get(), POLLIN, 0});
    }
    if (!running.empty() && poll(fds.data(), fds.size(), poll_timeout_ms(running)) < 0 && errno != EINTR) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // poll itself failed: do not spin
    }
    for (auto it = running.begin(); it != running.end();) {
      drain(&*it);
      if (std::optional<VetRun> run = poll_exit(&*it, time_limit_ms)) {
        runs[it->job] = std::move(*run);
        it = running.erase(it);
      } else {
        ++it;
      }
    }
  }
  return runs;
}

}  // namespace omnirt::vetting
