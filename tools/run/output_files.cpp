#include "output_files.h"

#include <set>

namespace omnirt::run {
namespace {

std::string safe(const std::string& name) {
  std::string file;
  for (const char c : name) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '-';
    file += plain ? c : '_';
  }
  return file;
}

}  // namespace

std::vector<std::string> output_file_names(const std::vector<std::string>& names) {
  auto by_index = [](size_t i) { return "output_" + std::to_string(i) + ".npy"; };
  // Names first, so that an index file never takes a name's place.
  std::vector<std::string> files(names.size());
  std::set<std::string> used;
  std::multiset<std::string> wanted;
  for (const std::string& name : names) {
    if (!name.empty()) wanted.insert("output_" + safe(name) + ".npy");
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) continue;
    const std::string file = "output_" + safe(names[i]) + ".npy";
    if (wanted.count(file) == 1) {
      files[i] = file;
      used.insert(file);
    }
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!files[i].empty()) continue;
    std::string file = by_index(i);
    for (size_t n = names.size(); used.count(file) > 0; ++n) file = by_index(n);
    files[i] = file;
    used.insert(file);
  }
  return files;
}

}  // namespace omnirt::run
