#include "search_path.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>

#include "config.h"
#include "environment.h"
#include "plugin_text.h"

namespace omnirt {
namespace {

SearchDirRecord place(std::string path, omnirt_path_source source) {
  std::string shown = display_path(path);
  return SearchDirRecord{std::move(path), std::move(shown), source, true, ""};
}

SearchDirRecord skipped(omnirt_path_source source, std::string note) {
  return SearchDirRecord{"", "", source, false, std::move(note)};
}

void add_environment(const Environment& env, std::vector<SearchDirRecord>* dirs) {
  const auto source = OMNIRT_SOURCE_ENVIRONMENT;
  if (env.ignored) {
    dirs->push_back(skipped(source, "OMNIRT_PLUGIN_PATH ignored: the embedder set OMNIRT_HOST_IGNORE_ENVIRONMENT"));
  } else if (env.secure) {
    dirs->push_back(skipped(source, "OMNIRT_PLUGIN_PATH ignored: setuid/setgid process (secure_getenv)"));
  } else if (!env.plugin_path.has_value() || env.plugin_path->empty()) {
    dirs->push_back(skipped(source, "OMNIRT_PLUGIN_PATH is not set"));
  } else {
    const std::string& list = *env.plugin_path;
    size_t begin = 0;
    while (begin <= list.size()) {
      const size_t end = std::min(list.find(':', begin), list.size());
      if (end > begin) dirs->push_back(place(list.substr(begin, end - begin), source));
      begin = end + 1;
    }
  }
}

void add_config(const HostConfig& config, std::vector<SearchDirRecord>* dirs) {
  const auto source = OMNIRT_SOURCE_CONFIG;
  if (config.path.empty()) {
    dirs->push_back(skipped(source, "no configuration file"));
  } else if (config.plugin_dirs.empty()) {
    dirs->push_back(skipped(source, "configuration '" + display_path(config.path) + "' has no plugin_dirs"));
  } else {
    for (const std::string& dir : config.plugin_dirs) dirs->push_back(place(dir, source));
  }
}

void add_installed(bool skip, std::vector<SearchDirRecord>* dirs) {
  const auto source = OMNIRT_SOURCE_INSTALLED;
  if (skip) {
    dirs->push_back(skipped(source, "skipped: the embedder set OMNIRT_HOST_SKIP_INSTALLED_DIR"));
    return;
  }
  std::string dir = installed_plugin_dir();
  if (dir.empty()) {
    dirs->push_back(skipped(source, "the location of libomnirt.so is unknown"));
  } else {
    dirs->push_back(place(std::move(dir), source));
  }
}

// The directory libomnirt.so was loaded from.
std::string library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&library_dir), &info) == 0 || info.dli_fname == nullptr) return {};
  // The loader's name for the library may climb through a run path
  // ("bin/../lib/libomnirt.so"): people read the directory it really is.
  const std::filesystem::path library(info.dli_fname);
  std::error_code error;
  const std::filesystem::path dir = std::filesystem::weakly_canonical(library.parent_path(), error);
  return (error ? library.parent_path().lexically_normal() : dir).string();
}

}  // namespace

std::vector<SearchDirRecord> build_search_path(const std::vector<std::string>& api_paths,
                                               const Environment& env, const HostConfig& config,
                                               bool skip_installed) {
  std::vector<SearchDirRecord> dirs;
  for (const std::string& path : api_paths) dirs.push_back(place(path, OMNIRT_SOURCE_API));
  if (api_paths.empty()) dirs.push_back(skipped(OMNIRT_SOURCE_API, "the embedder gave no plugin paths"));
  add_environment(env, &dirs);
  add_config(config, &dirs);
  add_installed(skip_installed, &dirs);
  return dirs;
}

std::string installed_plugin_dir() {
  const std::string dir = library_dir();
  return dir.empty() ? dir : dir + "/omnirt/plugins";
}

std::string installed_vet_helper() {
  const std::string dir = library_dir();
  return dir.empty() ? dir : dir + "/omnirt/omnirt-vet";
}

}  // namespace omnirt
