// Discovery: searching every place of the search path and loading what is found.
#ifndef OMNIRT_CORE_DISCOVERY_H_
#define OMNIRT_CORE_DISCOVERY_H_

#include <vector>

#include "candidate.h"
#include "registry.h"

namespace omnirt {

/// Scans each place of `search_dirs` marked searched (updating its
/// searched flag and note) and hands every file found, in search order, to
/// `registry` to vet (as `vetting` says) and load.
void discover_plugins(std::vector<SearchDirRecord>* search_dirs, const vetting::VetSettings& vetting,
                      Registry* registry);

}  // namespace omnirt

#endif  // OMNIRT_CORE_DISCOVERY_H_
