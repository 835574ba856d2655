// The files --save-outputs writes: one .npy per output, named by its key.
#pragma once

#include <string>
#include <vector>

namespace omnirt::run {

/// A file name for each output, given their names (omnirt_module_output_name;
/// "" when unnamed): "output_<name>.npy" with every character outside
/// [A-Za-z0-9._-] replaced by '_', else "output_<index>.npy" — for an unnamed
/// output, and for outputs whose names would give one file name (a number past
/// the last index when a name already took "output_<index>.npy").
std::vector<std::string> output_file_names(const std::vector<std::string>& names);

}  // namespace omnirt::run
