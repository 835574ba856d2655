#include "discovery.h"

#include <map>
#include <string>

#include "plugin_file.h"

namespace omnirt {

void discover_plugins(std::vector<SearchDirRecord>* search_dirs, Registry* registry) {
  std::map<std::string, std::string> first_seen;  // real path -> path first found as
  for (SearchDirRecord& dir : *search_dirs) {
    if (!dir.searched) continue;
    LocationScan scan = scan_location(dir.path, dir.source, &first_seen);
    dir.searched = scan.searched;
    dir.note = std::move(scan.note);
    for (CandidateRecord& candidate : scan.candidates) registry->consider(std::move(candidate));
  }
  registry->finish_loading();
}

}  // namespace omnirt
