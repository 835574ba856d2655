#include "probe.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

#include "kit.hpp"

extern char** environ;

namespace omnirt::conformance {
namespace {

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    const char* abbrev = sigabbrev_np(WTERMSIG(status));
    return std::string("killed by ") + (abbrev ? std::string("SIG") + abbrev : "a signal");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return "";
}

}  // namespace

ProbeResult run_probe(const std::string& scenario) {
  ProbeResult result;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<std::string> args = {self, kProbeFlag + scenario};
  if (!kit().config_path.empty()) {
    args.push_back("--config");
    args.push_back(kit().config_path);
  }
  args.push_back(kit().plugin_path);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out[2];
  if (pipe(out) != 0) {
    result.failure = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  pid_t pid = 0;
  const int spawn_error =
      posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (spawn_error != 0) {
    close(out[0]);
    result.failure = "cannot start the probe: " + std::string(std::strerror(spawn_error));
    return result;
  }
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) != 0;) {
    if (n > 0) text.append(buffer, static_cast<size_t>(n));
    else if (errno != EINTR) break;
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.failure = describe_wait_status(status);

  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) result.values[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return result;
}

const ProbeResult& shared_probe(const std::string& scenario) {
  static std::map<std::string, ProbeResult> results;  // tests run on one thread
  auto it = results.find(scenario);
  if (it == results.end()) it = results.emplace(scenario, run_probe(scenario)).first;
  return it->second;
}

std::string negotiate_scenario(unsigned min, unsigned max) {
  return "negotiate:" + std::to_string(min) + ":" + std::to_string(max);
}

}  // namespace omnirt::conformance
