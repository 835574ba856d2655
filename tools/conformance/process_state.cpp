#include "process_state.hpp"

#include <clocale>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

extern char** environ;

namespace omnirt::conformance {
namespace {

std::set<std::string> mapped_shared_objects() {
  std::set<std::string> out;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    if (path.find(".so") != std::string::npos) out.insert(path);
  }
  return out;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

template <class Set>
void report_difference(const Set& before, const Set& after, const std::string& what,
                       std::vector<std::string>* out) {
  for (const auto& item : after) {
    if (before.count(item) == 0) out->push_back(what + " added or changed: " + item);
  }
  for (const auto& item : before) {
    if (after.count(item) == 0) out->push_back(what + " removed or changed: " + item);
  }
}

}  // namespace

ProcessState capture_process_state() {
  ProcessState s;
  s.libraries = mapped_shared_objects();
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++s.threads;
  }
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction action;
    if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, nullptr, &action) != 0) continue;
    char text[64];
    std::snprintf(text, sizeof text, "handler %p flags 0x%x",
                  reinterpret_cast<void*>(action.sa_handler),
                  static_cast<unsigned>(action.sa_flags));
    s.signals[sig] = text;
  }
  s.locale = std::setlocale(LC_ALL, nullptr);
  for (char** e = environ; *e != nullptr; ++e) s.environment.insert(*e);
  s.working_directory = std::filesystem::current_path(ec).string();
  return s;
}

std::vector<std::string> new_libraries(const ProcessState& before, const ProcessState& after) {
  std::vector<std::string> out;
  for (const std::string& lib : after.libraries) {
    if (before.libraries.count(lib) == 0) out.push_back(lib);
  }
  return out;
}

std::vector<std::string> shared_state_changes(const ProcessState& before,
                                              const ProcessState& after) {
  std::vector<std::string> out;
  for (const auto& [sig, disposition] : after.signals) {
    const auto it = before.signals.find(sig);
    if (it != before.signals.end() && it->second != disposition) {
      out.push_back("handler of " + signal_name(sig) + " changed");
    }
  }
  if (before.locale != after.locale) {
    out.push_back("locale changed from '" + before.locale + "' to '" + after.locale + "'");
  }
  report_difference(before.environment, after.environment, "environment variable", &out);
  if (before.working_directory != after.working_directory) {
    out.push_back("working directory changed to " + after.working_directory);
  }
  return out;
}

}  // namespace omnirt::conformance
