// Vetting candidates in child processes before the host loads them
// (decision 13, docs/vetting.md): which to vet, the verdict cache, and what
// a verdict does to a candidate's record.
#ifndef OMNIRT_CORE_VETTING_VETTING_H_
#define OMNIRT_CORE_VETTING_VETTING_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "candidate.h"
#include "omnirt/host.h"

namespace omnirt {

struct Environment;
struct HostConfig;

namespace vetting {

/// Time limit of one candidate's vetting when nothing sets one.
inline constexpr uint32_t kDefaultTimeLimitMs = 10000;

/// How one host vets.
struct VetSettings {
  omnirt_vetting mode = OMNIRT_VETTING_NEW;
  /// Verdict cache directory; "" when no place for one could be found.
  std::string cache_dir;
  uint32_t time_limit_ms = kDefaultTimeLimitMs;
  /// Secure-execution mode: children get an empty environment, so nothing
  /// from it (LD_PRELOAD...) reaches a process that may run with privileges.
  bool empty_child_environment = false;
  /// The helper executable (omnirt-vet next to libomnirt.so).
  std::string helper;
};

/// The settings from the embedder's options, else OMNIRT_VETTING,
/// OMNIRT_VETTING_CACHE_DIR and OMNIRT_VETTING_TIME_LIMIT_MS, else the
/// configuration, else defaults (NEW; $XDG_CACHE_HOME/omnirt,
/// ~/.cache/omnirt or the passwd home's .cache/omnirt; 10 s). A bad option is
/// INVALID_ARGUMENT (recorded); a bad variable is logged and ignored.
omnirt_status resolve_settings(const omnirt_host_options& options, const Environment& env,
                               const HostConfig& config, VetSettings* settings);

/// Vets the candidates among `candidates` that passed the path checks
/// (status OK): from the verdict cache, else in children, in parallel. Each
/// gets its vet_outcome; one the vetting rejected also gets the stage it
/// reached, a status and a reason, and must not be loaded. A candidate that
/// could not be vetted (the helper is missing) stays NOT_VETTED, with a
/// warning in the log. `backend_options` are the configuration's, per
/// backend name: what create() will get.
void vet_candidates(const VetSettings& settings, const std::vector<CandidateRecord*>& candidates,
                    const std::map<std::string, std::map<std::string, std::string>>& backend_options);

}  // namespace vetting
}  // namespace omnirt

#endif  // OMNIRT_CORE_VETTING_VETTING_H_
