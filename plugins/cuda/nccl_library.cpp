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
  return plugin_common::LibraryLocator(
      {kNcclFile, explicit_path, {{"NCCL_HOME", "lib"}}, std::move(dirs), "nccl_library"});
}

// NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since 2.9.
std::string version_text(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

// NCCL_VERSION_CODE of the loaded library.
int version_of(const NcclSymbols& api) {
  int version = 0;
  api.ncclGetVersion(&version);
  return version;
}

}  // namespace

NcclLibrary::NcclLibrary(const std::string& explicit_path)
    : library_("cuda: collectives", nccl_locator(explicit_path),
               "install PyTorch's nvidia-nccl wheel or libnccl2, or set backend option nccl_library",
               [](const NcclSymbols& api, const plugin_common::DynamicLibrary& library) {
                 const int version = version_of(api);
                 if (version >= kOldestVersion) return std::string();
                 return library.path() + " is NCCL " + version_text(version) +
                        ", older than 2.14, the first with non-blocking communicators";
               }) {}

std::string NcclLibrary::describe() {
  const int version = version_of(get());
  return "NCCL " + version_text(version) + " (" + library_.path() + ")";
}

void NcclLibrary::check(ncclResult_t result, const char* call, ncclComm_t comm) {
  if (result == ncclSuccess) return;
  const NcclSymbols& api = get();
  std::string text = api.ncclGetErrorString(result);
  if (comm != nullptr && api.ncclGetLastError != nullptr) {
    const char* last = api.ncclGetLastError(comm);
    if (last != nullptr && last[0] != '\0') text += ": " + std::string(last);
  }
  plugin_common::fail_vendor("cuda", call, nccl_code(result), text);
}

}  // namespace omnirt::cuda
