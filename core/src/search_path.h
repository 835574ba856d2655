// The plugin search path, in the order of decision 9.
#ifndef OMNIRT_CORE_SEARCH_PATH_H_
#define OMNIRT_CORE_SEARCH_PATH_H_

#include <string>
#include <vector>

#include "candidate.h"

namespace omnirt {

struct Environment;
struct HostConfig;

/// Where to look, in order: `api_paths`, OMNIRT_PLUGIN_PATH (colon-separated),
/// the configuration's plugin_dirs, the installed plugin directory. A source
/// that names no place, or is skipped, gets one record with searched = false
/// and a note saying why, so that `omnirt-probe --verbose` can show it. The
/// others have searched = true until scanning says otherwise.
std::vector<SearchDirRecord> build_search_path(const std::vector<std::string>& api_paths,
                                               const Environment& env, const HostConfig& config,
                                               bool skip_installed);

/// <directory of libomnirt.so>/omnirt/plugins, or "" if it cannot be found.
std::string installed_plugin_dir();

/// <directory of libomnirt.so>/omnirt/omnirt-vet, the vetting helper, or ""
/// if the library's location cannot be found. The build tree has the same
/// layout as the install tree.
std::string installed_vet_helper();

}  // namespace omnirt

#endif  // OMNIRT_CORE_SEARCH_PATH_H_
