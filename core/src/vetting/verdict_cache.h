// The vetting verdicts of earlier host creations, one small file per plugin
// file in a directory only this user can write (docs/vetting.md).
#ifndef OMNIRT_CORE_VETTING_VERDICT_CACHE_H_
#define OMNIRT_CORE_VETTING_VERDICT_CACHE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "omnirt/host.h"
#include "vetting/file_identity.h"

namespace omnirt::vetting {

/// What vetting one candidate in a child process concluded.
struct Verdict {
  /// The child loaded and unloaded the plugin and exited cleanly.
  bool passed = false;
  /// When not passed: the stage the load had reached, the status and the
  /// reason the candidate is rejected with.
  omnirt_load_stage reached = OMNIRT_STAGE_FOUND;
  omnirt_status status = OMNIRT_STATUS_OK;
  std::string reason;
  /// How long the child took.
  uint64_t vet_time_ns = 0;
};

/// What a verdict holds for: one file's content, vetted by this host build
/// under these settings (`context`: library and ABI version, time limit,
/// backend options).
struct VerdictKey {
  std::string real_path;
  FileIdentity file;
  std::string context;
};

class VerdictCache {
 public:
  /// The cache in `dir` ("" for none), created (mode 0700, parents too) when
  /// missing. It is not used when it is not a directory, is writable by
  /// others, or belongs to another user (root's excepted); note() says why.
  explicit VerdictCache(std::string dir);

  bool usable() const noexcept { return usable_; }
  const std::string& dir() const noexcept { return dir_; }
  /// Why the cache is not used, or where it is.
  const std::string& note() const noexcept { return note_; }

  /// The verdict stored for exactly this key, if any. A file that is
  /// unreadable, garbled, writable by others or for another key is a miss.
  std::optional<Verdict> find(const VerdictKey& key) const;

  /// Stores the verdict for `key`, replacing the file's earlier one
  /// atomically (a temporary file renamed over it). False when it could not.
  bool store(const VerdictKey& key, const Verdict& verdict) const;

  /// Removes the verdicts of plugin files that no longer exist.
  void prune() const;

 private:
  std::string file_for(const std::string& real_path) const;

  std::string dir_;
  bool usable_ = false;
  std::string note_;
};

}  // namespace omnirt::vetting

#endif  // OMNIRT_CORE_VETTING_VERDICT_CACHE_H_
