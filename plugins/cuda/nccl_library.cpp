#include "nccl_library.h"

#include <glob.h>
#include <stdlib.h>

#include <vector>

#include "cuda_library_dirs.h"

namespace omnirt::cuda {
namespace {

constexpr const char* kNcclFile = "libnccl.so.2";
constexpr int kOldestVersion = 21400;  // non-blocking communicators

// Directories matching `pattern`, in glob's order.
void add_matches(const std::string& pattern, std::vector<std::string>& dirs) {
  glob_t matches{};
  if (glob(pattern.c_str(), GLOB_ONLYDIR, nullptr, &matches) == 0) {
    for (size_t i = 0; i < matches.gl_pathc; ++i) dirs.emplace_back(matches.gl_pathv[i]);
  }
  globfree(&matches);
}

// Where pip puts PyTorch's NCCL (the nvidia-nccl wheel, or torch/lib in
// wheels that carry it themselves), under the Python prefixes in use here.
std::vector<std::string> python_dirs() {
  std::vector<std::string> prefixes;
#ifdef OMNIRT_CUDA_TORCH_LIBDIR
  // The libtorch the engine was built with: <site-packages>/torch/lib.
  prefixes.emplace_back(OMNIRT_CUDA_TORCH_LIBDIR "/../..");
#endif
  for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    if (const char* root = secure_getenv(variable)) prefixes.push_back(std::string(root) + "/lib/python3*/site-packages");
  }
  if (const char* home = secure_getenv("HOME")) {
    prefixes.push_back(std::string(home) + "/.local/lib/python3*/site-packages");
  }
  for (const char* root : {"/usr/local/lib/python3*/dist-packages", "/usr/local/lib/python3*/site-packages",
                           "/usr/lib/python3/dist-packages", "/usr/lib/python3*/site-packages",
                           "/opt/conda/lib/python3*/site-packages"}) {
    prefixes.emplace_back(root);
  }
  std::vector<std::string> dirs;
  for (const std::string& prefix : prefixes) {
    add_matches(prefix + "/nvidia/nccl/lib", dirs);
    add_matches(prefix + "/torch/lib", dirs);
  }
  return dirs;
}

plugin_common::LibraryLocator nccl_locator(const std::string& explicit_path) {
  std::vector<std::string> dirs = python_dirs();
  for (std::string& dir : loader_library_dirs()) dirs.push_back(std::move(dir));
  return plugin_common::LibraryLocator({kNcclFile, explicit_path, {{"NCCL_HOME", "lib"}}, std::move(dirs)});
}

// NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since 2.9.
std::string version_text(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

}  // namespace

NcclLibrary::NcclLibrary(const std::string& explicit_path) : locator_(nccl_locator(explicit_path)) {}

bool NcclLibrary::present() const {
  found_once_([this] { found_ = already_loaded(kNcclFile) || locator_.find().has_value(); });
  return found_;
}

const NcclSymbols& NcclLibrary::get() {
  loaded_once_([this] { load(); });
  if (!error_.empty()) plugin::fail(OMNIRT_STATUS_UNAVAILABLE, "cuda: collectives: " + error_);
  return api_;
}

void NcclLibrary::load() {
  std::string why;
  // Already in the process (libtorch's): that copy, so both agree on state.
  library_ = already_loaded(kNcclFile) ? plugin_common::DynamicLibrary::open(kNcclFile, &why)
                                       : locator_.open(&why);
  if (!library_) {
    error_ = "NCCL could not be loaded: " + why +
             " (install PyTorch's nvidia-nccl wheel or libnccl2, or set backend option nccl_library)";
    return;
  }
  plugin_common::SymbolResolver symbols(library_);
  api_.resolve(symbols);
  const std::string missing = symbols.missing_required();
  int version = 0;
  if (missing.empty()) api_.ncclGetVersion(&version);
  if (!missing.empty() || version < kOldestVersion) {
    error_ = library_.path() + " is older than NCCL 2.14, the first with non-blocking communicators" +
             (missing.empty() ? " (it is " + version_text(version) + ")" : " (it lacks " + missing + ")");
    return;
  }
  version_ = version;
}

std::string NcclLibrary::describe() {
  get();
  return "NCCL " + version_text(version_) + " (" + library_.path() + ")";
}

void NcclLibrary::check(ncclResult_t result, const char* call, ncclComm_t comm) {
  if (result == ncclSuccess) return;
  std::string text = api_.ncclGetErrorString(result);
  if (comm != nullptr && api_.ncclGetLastError != nullptr) {
    const char* last = api_.ncclGetLastError(comm);
    if (last != nullptr && last[0] != '\0') text += ": " + std::string(last);
  }
  plugin_common::fail_vendor("cuda", call, nccl_code(result), text);
}

}  // namespace omnirt::cuda
