// The module format of a model file, told from what is inside it: a
// TorchScript archive (.pt) and an AOTInductor package (.pt2) are both
// PyTorch zip archives, told apart by their entries.
#ifndef OMNIRT_TOOLS_RUN_MODULE_FORMAT_H_
#define OMNIRT_TOOLS_RUN_MODULE_FORMAT_H_

#include <string>
#include <vector>

namespace omnirt::run {

/// The names of the entries of the zip archive at `path`, from its central
/// directory (zip64 too). Throws std::runtime_error when it is not one.
std::vector<std::string> zip_entry_names(const std::string& path);

/// "aoti" for an AOTInductor package (entries under data/aotinductor/),
/// "torchscript" for a TorchScript archive (a data.pkl and code/). A file
/// that is neither (not a zip archive, truncated, another archive) is taken
/// by its extension, .pt2 for "aoti" and any other for "torchscript", so that
/// the backend's engine says what is wrong with it.
std::string module_format_of(const std::string& path);

}  // namespace omnirt::run

#endif  // OMNIRT_TOOLS_RUN_MODULE_FORMAT_H_
