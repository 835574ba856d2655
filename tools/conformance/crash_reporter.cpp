#include "crash_reporter.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "rules.hpp"

namespace omnirt::conformance {
namespace {

// Formatted before each test: a signal handler may only write() it.
char g_message[512] = "";

void on_fatal_signal(int sig) {
  if (g_message[0] != '\0') {
    const char* name = sigabbrev_np(sig);
    const char* parts[] = {"\nomnirt-conformance: CRASHED with SIG", name ? name : "?", " in ",
                           g_message, "\n"};
    for (const char* p : parts) {
      if (write(STDERR_FILENO, p, strlen(p)) < 0) break;
    }
  }
  raise(sig);  // SA_RESETHAND restored the default action
}

}  // namespace

void CrashReporter::OnTestProgramStart(const ::testing::UnitTest&) {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_fatal_signal;
  action.sa_flags = SA_RESETHAND | SA_NODEFER;
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) sigaction(sig, &action, nullptr);
}

void CrashReporter::OnTestStart(const ::testing::TestInfo& info) {
  const std::string text = std::string(info.test_suite_name()) + "." + info.name() + " [" +
                           describe_rule(rule_of(info.test_suite_name(), info.name())) + "]";
  std::snprintf(g_message, sizeof g_message, "%s", text.c_str());
}

void CrashReporter::OnTestEnd(const ::testing::TestInfo&) { g_message[0] = '\0'; }

}  // namespace omnirt::conformance
