// Discovery: searching every place of the search path and loading what is found.
#ifndef OMNIRT_CORE_DISCOVERY_H_
#define OMNIRT_CORE_DISCOVERY_H_

#include <vector>

#include "candidate.h"
#include "registry.h"

namespace omnirt {

/// Scans each place of `search_dirs` marked searched (updating its
/// searched flag and note), hands every file found to `registry` in search
/// order, and then puts the backends in selection order.
void discover_plugins(std::vector<SearchDirRecord>* search_dirs, Registry* registry);

}  // namespace omnirt

#endif  // OMNIRT_CORE_DISCOVERY_H_
