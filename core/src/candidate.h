// The diagnostic records of discovery: one per search location, one per
// candidate plugin file (host-side forms of omnirt_search_dir and
// omnirt_candidate).
#ifndef OMNIRT_CORE_CANDIDATE_H_
#define OMNIRT_CORE_CANDIDATE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "omnirt/host.h"

namespace omnirt {

/// Number of omnirt_load_stage values.
inline constexpr size_t kStageCount = OMNIRT_STAGE_AVAILABLE + 1;

/// One place in the search path and what came of searching it.
struct SearchDirRecord {
  std::string path;  ///< as given ("" for a source that named no place)
  std::string path_shown;  ///< `path` as records show it (display_path)
  omnirt_path_source source = OMNIRT_SOURCE_API;
  bool searched = false;
  std::string note;  ///< why it was skipped, or what was found there
};

/// One candidate plugin file, from the path checks to is_available.
struct CandidateRecord {
  std::string path;       ///< as found: the bytes the file system knows
  std::string real_path;  ///< after resolving links; "" if that failed
  /// `path` and `real_path` as records and messages show them: UTF-8, other
  /// bytes as \xNN (display_path).
  std::string path_shown;
  std::string real_path_shown;
  omnirt_path_source source = OMNIRT_SOURCE_API;
  /// <name> from libomnirt_backend_<name>.so ("" if the file name breaks the
  /// rule), so that asking for a backend by name finds its rejected file.
  std::string file_backend_name;
  /// Furthest stage reached. Path-check failures stay at FOUND.
  omnirt_load_stage stage = OMNIRT_STAGE_FOUND;
  bool loaded = false;
  /// Why it stopped (or UNAVAILABLE for a loaded backend that cannot run here).
  omnirt_status status = OMNIRT_STATUS_OK;
  /// Left unloaded by choice (an earlier copy, the allow/deny lists, a backend
  /// of that name already loaded), not rejected for a fault.
  bool skipped = false;
  std::string reason;
  std::string backend_name;  ///< from the vtable; "" if not reached
  uint32_t plugin_abi_version = 0;
  uint64_t load_time_ns = 0;
  /// Time spent in each stage attempted, indexed by omnirt_load_stage.
  std::array<uint64_t, kStageCount> stage_time_ns{};
  /// What vetting in a child process made of it (omnirt_vet_outcome).
  omnirt_vet_outcome vet_outcome = OMNIRT_VET_NOT_VETTED;
  /// The outcome came from the verdict cache.
  bool vet_cached = false;
  /// Time the vetting child took.
  uint64_t vet_time_ns = 0;
};

}  // namespace omnirt

#endif  // OMNIRT_CORE_CANDIDATE_H_
