// A snapshot of process-wide state that a plugin could disturb: mapped shared
// objects and threads (rule 4: nothing heavy at load), and signal handlers,
// locale, environment and working directory (rule 11: a driver must not break
// other drivers).
#ifndef OMNIRT_CONFORMANCE_PROCESS_STATE_HPP_
#define OMNIRT_CONFORMANCE_PROCESS_STATE_HPP_

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace omnirt::conformance {

struct ProcessState {
  std::set<std::string> libraries;          // mapped files that are shared objects
  size_t threads = 0;                       // entries of /proc/self/task
  std::map<int, std::string> signals;       // signal -> disposition ("handler 0x..")
  std::string locale;                       // setlocale(LC_ALL, NULL)
  std::set<std::string> environment;        // "NAME=value"
  std::string working_directory;
};

ProcessState capture_process_state();

// Shared objects mapped in `after` that were not in `before`.
std::vector<std::string> new_libraries(const ProcessState& before, const ProcessState& after);

// What changed in the rule-11 state, one line each ("handler of SIGUSR2").
std::vector<std::string> shared_state_changes(const ProcessState& before,
                                              const ProcessState& after);

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_PROCESS_STATE_HPP_
