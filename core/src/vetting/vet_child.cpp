#include "vetting/vet_child.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <string>

#include "logging.h"
#include "plugin_loader.h"
#include "plugin_text.h"
#include "vetting/vet_protocol.h"

namespace omnirt::vetting {
namespace {

// Writes all of `line` to the report pipe. A failure means the host is gone
// or stopped listening: nothing left to report to.
void report(const std::string& line) noexcept {
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = write(kReportFd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(2);
    written += static_cast<size_t>(n);
  }
}

class StepReporter final : public LoadObserver {
 public:
  void starting(omnirt_load_stage stage) noexcept override { report(step_line(stage)); }
};

// The child must die the way the plugin makes it die, so that the host can
// name the signal: no core file, no inherited handler or mask in the way
// (sanitizer runtimes catch SEGV and exit with a status instead), and killed
// with the host thread that spawned it.
void prepare_process() noexcept {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  for (const int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS}) {
    struct sigaction action {};
    action.sa_handler = SIG_DFL;
    sigaction(signal, &action, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  logger().set_level(spdlog::level::off);  // the report is the only output
}

int vet(int argc, char** argv) {
  if (argc < 3 || argc % 2 == 0) return 2;
  CandidateRecord record;
  record.path = argv[1];
  record.real_path = argv[1];
  record.path_shown = display_path(record.path);
  record.real_path_shown = record.path_shown;
  record.file_backend_name = argv[2];
  std::map<std::string, std::string> options;
  for (int i = 3; i + 1 < argc; i += 2) options[argv[i]] = argv[i + 1];

  StepReporter reporter;
  std::unique_ptr<omnirt_backend> backend = load_plugin(&record, options, &reporter);
  report(loaded_line(record.stage));
  report(step_line(kUnloadStep));
  std::vector<std::unique_ptr<omnirt_backend>> loaded;
  if (backend != nullptr) loaded.push_back(std::move(backend));
  unload_plugins(&loaded);
  report(done_line());
  return 0;
}

}  // namespace

int vet_child_main(int argc, char** argv) noexcept {
  prepare_process();
  int code = 2;
  try {
    code = vet(argc, argv);
  } catch (...) {  // out of memory in the host's own code: not the plugin's verdict
    code = 2;
  }
  // No static destructors or atexit handlers: the plugin is unloaded, and
  // nothing of the helper's needs tearing down.
  _exit(code);
}

}  // namespace omnirt::vetting
