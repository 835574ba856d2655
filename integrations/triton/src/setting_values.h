// Values of string settings, as Triton hands them over (backend config
// `--backend-config=omnirt,KEY=VALUE` and model config `parameters`).
#pragma once

#include <string>
#include <vector>

namespace omnirt::triton {

/// "true"/"false" (also "1"/"0", "yes"/"no", "on"/"off", any case). Throws
/// Error(INVALID_ARG) naming `where` (e.g. "parameter 'compile'") otherwise.
bool parse_flag(const std::string& where, const std::string& value);

/// Splits a ':'-separated path list, dropping empty entries.
std::vector<std::string> split_paths(const std::string& value);

/// "a, b, c".
std::string join_names(const std::vector<std::string>& names);

}  // namespace omnirt::triton
