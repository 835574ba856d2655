// Finding plugin files in one search location, and the path checks each file
// must pass before it is dlopen'ed (decision 9).
#ifndef OMNIRT_CORE_PLUGIN_FILE_H_
#define OMNIRT_CORE_PLUGIN_FILE_H_

#include <map>
#include <string>
#include <vector>

#include "candidate.h"

namespace omnirt {

/// What searching one location found.
struct LocationScan {
  /// False when the location could not be searched (missing, unreadable).
  bool searched = false;
  /// Why it was not searched, or what was found there.
  std::string note;
  /// The plugin files found, in name order. Each is at stage FOUND: status OK
  /// if it passed the path checks, else the status and reason of the refusal.
  std::vector<CandidateRecord> candidates;
};

/// Searches `location`: a directory yields every libomnirt_backend_*.so in
/// it (not recursively); a file yields itself. `first_seen` maps the real path
/// of every file found so far to the path it was first found as (as shown);
/// a file seen before is refused as a duplicate (ALREADY_EXISTS).
LocationScan scan_location(const std::string& location, omnirt_path_source source,
                           std::map<std::string, std::string>* first_seen);

}  // namespace omnirt

#endif  // OMNIRT_CORE_PLUGIN_FILE_H_
