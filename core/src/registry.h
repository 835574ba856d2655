// The backends of one host and the records of every file it considered.
#ifndef OMNIRT_CORE_REGISTRY_H_
#define OMNIRT_CORE_REGISTRY_H_

#include <memory>
#include <optional>
#include <vector>

#include "backend.h"
#include "candidate.h"

namespace omnirt {

struct HostConfig;

/// Admits candidates (allow/deny lists, one plugin per backend name), loads
/// them, keeps backends in selection order and answers selection by name.
class Registry {
 public:
  Registry(const HostConfig& config, omnirt_host* owner) noexcept : config_(config), owner_(owner) {}
  /// Destroys the backends and unloads their plugins.
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  /// Takes a candidate at stage FOUND: records it as refused when the path
  /// checks, the configuration or an earlier backend of the same name refuse
  /// it; loads it otherwise. Candidates are considered in search order, so
  /// the first plugin of a name wins.
  void consider(CandidateRecord candidate);

  /// Puts the backends in selection order: priority (higher first), then name.
  void finish_loading();

  /// Selection as omnirt_host_get_backend documents it.
  omnirt_status select(const char* name, omnirt_backend** out) const;

  const std::vector<CandidateRecord>& candidates() const noexcept { return candidates_; }
  const std::vector<std::unique_ptr<omnirt_backend>>& backends() const noexcept { return backends_; }

 private:
  /// Why configuration or an earlier backend refuses this name, if they do.
  std::optional<std::pair<omnirt_status, std::string>> refusal(const std::string& name) const;
  omnirt_status select_auto(omnirt_backend** out) const;
  omnirt_status select_named(const char* name, omnirt_backend** out) const;

  const HostConfig& config_;
  omnirt_host* owner_;
  std::vector<CandidateRecord> candidates_;
  std::vector<std::unique_ptr<omnirt_backend>> backends_;
};

}  // namespace omnirt

#endif  // OMNIRT_CORE_REGISTRY_H_
