#include "discovery.h"

#include <map>
#include <string>

#include "plugin_file.h"

namespace omnirt {

void discover_plugins(std::vector<SearchDirRecord>* search_dirs, const vetting::VetSettings& vetting,
                      Registry* registry) {
  std::map<std::string, std::string> first_seen;  // real path -> path first found as
  std::vector<CandidateRecord> found;
  for (SearchDirRecord& dir : *search_dirs) {
    if (!dir.searched) continue;
    LocationScan scan = scan_location(dir.path, dir.source, &first_seen);
    dir.searched = scan.searched;
    dir.note = std::move(scan.note);
    for (CandidateRecord& candidate : scan.candidates) found.push_back(std::move(candidate));
  }
  registry->load_all(std::move(found), vetting);
}

}  // namespace omnirt
