// Running vetting children: posix_spawn of the helper (safe in a
// multithreaded embedder, unlike fork), their reports read over pipes, every
// wait bounded, every child killed on time-out and reaped.
#ifndef OMNIRT_CORE_VETTING_VET_SPAWN_H_
#define OMNIRT_CORE_VETTING_VET_SPAWN_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vetting/verdict_cache.h"

namespace omnirt::vetting {

/// One candidate to vet.
struct VetJob {
  std::string real_path;
  /// <name> of its file name, which the vtable's name must match.
  std::string backend_name;
  /// The options the host would pass to create().
  std::map<std::string, std::string> options;
};

/// How vetting one candidate went.
struct VetRun {
  /// False when no verdict could be had because of the helper itself (it
  /// could not be started, or ended before loading anything): `problem` says why.
  bool vetted = false;
  Verdict verdict;
  std::string problem;
};

/// Vets `jobs` with the helper executable `helper`, several children at
/// once, each within `time_limit_ms`: a child still running then is killed
/// with its process group and the job rejected with TIMEOUT. Every child has
/// been reaped when this returns (one that even SIGKILL cannot end within 2
/// s more is left to a background thread to reap). `empty_environment`: the
/// children get no environment (setuid hosts). Results are in job order.
std::vector<VetRun> run_vetting_children(const std::string& helper, const std::vector<VetJob>& jobs,
                                         uint32_t time_limit_ms, bool empty_environment);

}  // namespace omnirt::vetting

#endif  // OMNIRT_CORE_VETTING_VET_SPAWN_H_
