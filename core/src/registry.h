// The backends of one host and the records of every file it considered.
#ifndef OMNIRT_CORE_REGISTRY_H_
#define OMNIRT_CORE_REGISTRY_H_

#include <memory>
#include <optional>
#include <vector>

#include "backend.h"
#include "candidate.h"
#include "vetting/vetting.h"

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

  /// Takes every candidate of a search, in search order, at stage FOUND:
  /// records as refused those the path checks or the configuration refuse,
  /// vets the others (`vetting`), then loads them one by one unless vetting
  /// rejected them or an earlier backend has the same name (the first plugin
  /// of a name wins). Then puts the backends in selection order: priority
  /// (higher first), then name.
  void load_all(std::vector<CandidateRecord> candidates, const vetting::VetSettings& vetting);

  /// Selection as omnirt_host_get_backend documents it.
  omnirt_status select(const char* name, omnirt_backend** out) const;

  const std::vector<CandidateRecord>& candidates() const noexcept { return candidates_; }
  const std::vector<std::unique_ptr<omnirt_backend>>& backends() const noexcept { return backends_; }

 private:
  /// Why the configuration refuses this name, if it does.
  std::optional<std::pair<omnirt_status, std::string>> refusal_by_config(const std::string& name) const;
  /// Why an earlier backend of this name refuses it, if one does.
  std::optional<std::pair<omnirt_status, std::string>> refusal_by_backend(const std::string& name) const;
  /// Loads one candidate that is still OK, unless an earlier backend has its name.
  void consider(CandidateRecord candidate);
  omnirt_status select_auto(omnirt_backend** out) const;
  omnirt_status select_named(const char* name, omnirt_backend** out) const;

  const HostConfig& config_;
  omnirt_host* owner_;
  std::vector<CandidateRecord> candidates_;
  std::vector<std::unique_ptr<omnirt_backend>> backends_;
};

}  // namespace omnirt

#endif  // OMNIRT_CORE_REGISTRY_H_
