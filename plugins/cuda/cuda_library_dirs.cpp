#include "cuda_library_dirs.h"

#include <dlfcn.h>
#include <glob.h>

#include <fstream>
#include <sstream>

namespace omnirt::cuda {
namespace {

// Directories named in `file` (an ld.so.conf), following its includes.
void ld_conf_dirs(const std::string& file, int depth, std::vector<std::string>& out) {
  std::ifstream in(file);
  for (std::string line; depth < 8 && std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::stringstream words(line);
    std::string word;
    if (!(words >> word)) continue;
    if (word != "include") {
      out.push_back(word);
      continue;
    }
    while (words >> word) {
      glob_t matches{};
      if (glob(word.c_str(), 0, nullptr, &matches) == 0) {
        for (size_t i = 0; i < matches.gl_pathc; ++i)
          ld_conf_dirs(matches.gl_pathv[i], depth + 1, out);
      }
      globfree(&matches);
    }
  }
}

}  // namespace

std::vector<std::string> loader_library_dirs() {
  std::vector<std::string> dirs;
  ld_conf_dirs("/etc/ld.so.conf", 0, dirs);
  for (const char* d :
       {"/lib64", "/usr/lib64", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
        "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib", "/usr/lib",
        "/usr/local/nvidia/lib64", "/usr/lib/wsl/lib"}) {
    dirs.emplace_back(d);
  }
  return dirs;
}

bool already_loaded(const char* soname) {
  void* handle = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle != nullptr) dlclose(handle);
  return handle != nullptr;
}

}  // namespace omnirt::cuda
