#include "plugin_file.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "backend_name.h"
#include "plugin_text.h"

namespace omnirt {
namespace {

namespace fs = std::filesystem;

void refuse(CandidateRecord* candidate, omnirt_status status, std::string reason) {
  candidate->status = status;
  candidate->reason = std::move(reason);
}

std::string resolve(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> resolved(realpath(path.c_str(), nullptr), &std::free);
  return resolved ? std::string(resolved.get()) : std::string();
}

// The checks of decision 9, in order: a valid file name, a resolvable path,
// not seen before, a regular file, neither the file nor its directory
// world-writable (anyone could swap in their own code).
void check(CandidateRecord* candidate, std::map<std::string, std::string>* first_seen) {
  const std::string file_name = fs::path(candidate->path).filename().string();
  const std::string_view name = backend_name_of_file(file_name);
  if (!is_valid_backend_name(name)) {
    return refuse(candidate, OMNIRT_STATUS_INVALID_ARGUMENT,
                  fmt::format("file name '{}' is not libomnirt_backend_<name>.so with <name> in "
                              "[a-z0-9_]{{1,32}}",
                              display_path(file_name)));
  }
  candidate->file_backend_name = std::string(name);

  candidate->real_path = resolve(candidate->path);
  if (candidate->real_path.empty()) {
    return refuse(candidate, OMNIRT_STATUS_NOT_FOUND,
                  fmt::format("cannot resolve the path: {}", std::strerror(errno)));
  }
  candidate->real_path_shown = display_path(candidate->real_path);
  const auto [first, inserted] = first_seen->emplace(candidate->real_path, candidate->path_shown);
  if (!inserted) {
    candidate->skipped = true;
    return refuse(candidate, OMNIRT_STATUS_ALREADY_EXISTS,
                  fmt::format("same file as '{}' (real path '{}'); loaded once", first->second,
                              candidate->real_path_shown));
  }

  struct stat file_status {};
  if (stat(candidate->real_path.c_str(), &file_status) != 0 || !S_ISREG(file_status.st_mode)) {
    return refuse(candidate, OMNIRT_STATUS_NOT_FOUND, "not a regular file");
  }
  if ((file_status.st_mode & S_IWOTH) != 0) {
    return refuse(candidate, OMNIRT_STATUS_UNAVAILABLE,
                  fmt::format("refused: the file is world-writable (mode {:04o})",
                              file_status.st_mode & 07777));
  }
  const std::string directory = fs::path(candidate->real_path).parent_path().string();
  struct stat dir_status {};
  if (stat(directory.c_str(), &dir_status) == 0 && (dir_status.st_mode & S_IWOTH) != 0) {
    return refuse(candidate, OMNIRT_STATUS_UNAVAILABLE,
                  fmt::format("refused: its directory '{}' is world-writable (mode {:04o})",
                              display_path(directory), dir_status.st_mode & 07777));
  }
}

CandidateRecord candidate_at(std::string path, omnirt_path_source source) {
  CandidateRecord candidate;
  candidate.path_shown = display_path(path);
  candidate.path = std::move(path);
  candidate.source = source;
  return candidate;
}

}  // namespace

LocationScan scan_location(const std::string& location, omnirt_path_source source,
                           std::map<std::string, std::string>* first_seen) {
  LocationScan scan;
  std::error_code ec;
  const fs::file_status status = fs::status(location, ec);
  if (status.type() == fs::file_type::not_found) {
    scan.note = "does not exist";
    return scan;
  }
  if (ec) {
    scan.note = "cannot access: " + ec.message();
    return scan;
  }
  if (fs::is_regular_file(status)) {
    scan.candidates.push_back(candidate_at(location, source));
  } else if (fs::is_directory(status)) {
    fs::directory_iterator it(location, ec);
    if (ec) {
      scan.note = "cannot read: " + ec.message();
      return scan;
    }
    std::vector<std::string> paths;
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
      if (looks_like_plugin_file(it->path().filename().string())) paths.push_back(it->path().string());
    }
    std::sort(paths.begin(), paths.end());
    for (std::string& path : paths) scan.candidates.push_back(candidate_at(std::move(path), source));
  } else {
    scan.note = "neither a directory nor a file";
    return scan;
  }
  for (CandidateRecord& candidate : scan.candidates) check(&candidate, first_seen);
  scan.searched = true;
  scan.note = fs::is_directory(status)
                  ? fmt::format("{} plugin file{}", scan.candidates.size(),
                                scan.candidates.size() == 1 ? "" : "s")
                  : "plugin file";
  return scan;
}

}  // namespace omnirt
