// Where a vendor runtime library may live, in search order, and how to open it.
//
// The order is: the backend option naming the file (when set, the only
// candidate); `<$VAR>/<subdir>` for each vendor environment variable; the
// vendor's default install directories; each LD_LIBRARY_PATH entry; and last
// the bare soname through the dynamic loader (ld.so.cache, RUNPATH).
// Environment variables are read with secure_getenv, so a setuid process
// ignores them, as the host does for plugin paths.
#ifndef OMNIRT_PLUGIN_COMMON_LIBRARY_LOCATOR_H_
#define OMNIRT_PLUGIN_COMMON_LIBRARY_LOCATOR_H_

#include <sys/stat.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "omnirt_plugin_common/dynamic_library.h"

namespace omnirt::plugin_common {

struct LibrarySearch {
  // File name of the library, e.g. "libascendcl.so".
  std::string soname;
  // The backend option `library`: a full path. When set it is the only candidate.
  std::string explicit_path;
  // Environment variables naming an install root, each with the subdirectory
  // that holds the library: {"ASCEND_HOME_PATH", "lib64"}.
  std::vector<std::pair<std::string, std::string>> env_roots;
  // Default install directories of the vendor.
  std::vector<std::string> default_dirs;
  // The name of the backend option that gives explicit_path, for messages.
  std::string option = "library";
};

class LibraryLocator {
 public:
  explicit LibraryLocator(LibrarySearch search) : search_(std::move(search)) {}

  const std::string& soname() const noexcept { return search_.soname; }
  /// Was a path given (the backend option)? Then it is the only candidate.
  bool pinned() const noexcept { return !search_.explicit_path.empty(); }

  // The first candidate file that exists. Cheap: stats files, loads nothing.
  std::optional<std::string> find() const {
    for (const std::string& path : candidates()) {
      if (is_file(path)) return path;
    }
    return std::nullopt;
  }

  // Why find() came back empty, naming every place searched.
  std::string not_found_reason() const {
    if (!search_.explicit_path.empty()) {
      return search_.soname + " not found: backend option " + search_.option + "=" +
             search_.explicit_path + " is not a file";
    }
    std::string places;
    for (const auto& [var, subdir] : search_.env_roots) {
      places += "$" + var + "/" + subdir;
      const char* root = secure_getenv(var.c_str());
      places += root != nullptr && root[0] != '\0' ? " (" + std::string(root) + "/" + subdir + ")"
                                                   : " (unset)";
      places += ", ";
    }
    for (const std::string& dir : search_.default_dirs) places += dir + ", ";
    places += "LD_LIBRARY_PATH";
    return search_.soname + " not found in " + places;
  }

  // Opens the first candidate that exists, else the bare soname through the
  // loader. On failure returns an empty library and explains in *error.
  DynamicLibrary open(std::string* error) const {
    if (std::optional<std::string> file = find()) return DynamicLibrary::open(*file, error);
    if (!search_.explicit_path.empty()) {
      *error = not_found_reason();
      return {};
    }
    std::string loader_error;
    DynamicLibrary lib = DynamicLibrary::open(search_.soname, &loader_error);
    if (!lib) *error = not_found_reason() + "; the dynamic loader: " + loader_error;
    return lib;
  }

 private:
  std::vector<std::string> candidates() const {
    if (!search_.explicit_path.empty()) return {search_.explicit_path};
    std::vector<std::string> out;
    for (const auto& [var, subdir] : search_.env_roots) {
      const char* root = secure_getenv(var.c_str());
      if (root != nullptr && root[0] != '\0')
        out.push_back(join(join(root, subdir), search_.soname));
    }
    for (const std::string& dir : search_.default_dirs) out.push_back(join(dir, search_.soname));
    if (const char* paths = secure_getenv("LD_LIBRARY_PATH")) {
      std::string list = paths;
      for (size_t begin = 0; begin <= list.size();) {
        size_t end = list.find(':', begin);
        if (end == std::string::npos) end = list.size();
        if (end > begin) out.push_back(join(list.substr(begin, end - begin), search_.soname));
        begin = end + 1;
      }
    }
    return out;
  }

  static std::string join(const std::string& dir, const std::string& name) {
    if (dir.empty() || dir.back() == '/') return dir + name;
    return dir + "/" + name;
  }

  static bool is_file(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  }

  LibrarySearch search_;
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_LIBRARY_LOCATOR_H_
