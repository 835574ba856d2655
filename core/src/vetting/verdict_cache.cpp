#include "vetting/verdict_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <string_view>

#include "plugin_text.h"
#include "vetting/unique_fd.h"

namespace omnirt::vetting {
namespace {

constexpr std::string_view kFormat = "omnirt-verdict 1";
constexpr std::string_view kSuffix = ".verdict";
constexpr std::string_view kTemporaryPrefix = ".verdict-";
/// A verdict file is a few hundred bytes; anything much larger is not one.
constexpr size_t kMaxFileBytes = 16 * 1024;

// Ours, or root's, and not writable by everyone: nobody else can plant verdicts.
bool trusted(const struct stat& status) {
  return (status.st_uid == geteuid() || status.st_uid == 0) && (status.st_mode & S_IWOTH) == 0;
}

std::string why_untrusted(const struct stat& status) {
  if ((status.st_mode & S_IWOTH) != 0) {
    return fmt::format("it is world-writable (mode {:04o})", status.st_mode & 07777);
  }
  return fmt::format("it belongs to user {}, not to this process's user {}", status.st_uid, geteuid());
}

// mkdir -p with mode 0700 for every directory it makes.
bool make_directories(const std::string& dir) {
  struct stat status {};
  if (stat(dir.c_str(), &status) == 0) return S_ISDIR(status.st_mode);
  const size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0 && !make_directories(dir.substr(0, slash))) return false;
  return mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST;
}

// Values are one line each: backslashes and newlines are escaped.
std::string escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string unescape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      ++i;
      out.push_back(text[i] == 'n' ? '\n' : text[i]);
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

template <class T>
bool parse_number(const std::string& text, T* value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

std::string render(const VerdictKey& key, const Verdict& verdict) {
  const FileIdentity& f = key.file;
  return fmt::format(
      "{}\npath {}\ndevice {}\ninode {}\nsize {}\nmtime_ns {}\nctime_ns {}\nbuild_id {}\ncontext {}\n"
      "passed {}\nstage {}\nstatus {}\nvet_time_ns {}\nreason {}\n",
      kFormat, escape(key.real_path), f.device, f.inode, f.size, f.mtime_ns, f.ctime_ns, f.build_id,
      escape(key.context), verdict.passed ? 1 : 0, static_cast<int>(verdict.reached),
      static_cast<int>(verdict.status), verdict.vet_time_ns, escape(verdict.reason));
}

// "key value" lines after the format line; nothing when the format differs.
std::map<std::string, std::string> parse_fields(std::string_view text) {
  std::map<std::string, std::string> fields;
  size_t at = text.find('\n');
  if (at == std::string_view::npos || text.substr(0, at) != kFormat) return fields;
  while (++at < text.size()) {
    const size_t end = text.find('\n', at);
    if (end == std::string_view::npos) break;
    const std::string_view line = text.substr(at, end - at);
    const size_t space = line.find(' ');
    if (space != std::string_view::npos) {
      fields[std::string(line.substr(0, space))] = unescape(line.substr(space + 1));
    }
    at = end;
  }
  return fields;
}

// The file's content when it is a trusted regular file of plausible size.
std::optional<std::string> read_trusted(const std::string& path) {
  const UniqueFd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat status {};
  if (!fd || fstat(fd.get(), &status) != 0 || !S_ISREG(status.st_mode) || !trusted(status) ||
      status.st_size > static_cast<off_t>(kMaxFileBytes)) {
    return std::nullopt;
  }
  std::string text(static_cast<size_t>(status.st_size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    got += static_cast<size_t>(n);
  }
  return text;
}

std::optional<Verdict> verdict_for(const std::map<std::string, std::string>& fields, const VerdictKey& key) {
  const auto field = [&](const char* name) -> const std::string& {
    static const std::string kMissing;
    const auto it = fields.find(name);
    return it != fields.end() ? it->second : kMissing;
  };
  FileIdentity file;
  file.build_id = field("build_id");
  int passed = 0;
  int stage = 0;
  int status = 0;
  Verdict verdict;
  if (!parse_number(field("device"), &file.device) || !parse_number(field("inode"), &file.inode) ||
      !parse_number(field("size"), &file.size) || !parse_number(field("mtime_ns"), &file.mtime_ns) ||
      !parse_number(field("ctime_ns"), &file.ctime_ns) || !parse_number(field("passed"), &passed) ||
      !parse_number(field("stage"), &stage) || !parse_number(field("status"), &status) ||
      !parse_number(field("vet_time_ns"), &verdict.vet_time_ns)) {
    return std::nullopt;
  }
  if (field("path") != key.real_path || !(file == key.file) || field("context") != key.context ||
      stage < OMNIRT_STAGE_FOUND || stage > OMNIRT_STAGE_AVAILABLE) {
    return std::nullopt;
  }
  verdict.passed = passed == 1;
  verdict.reached = static_cast<omnirt_load_stage>(stage);
  verdict.status = static_cast<omnirt_status>(status);
  verdict.reason = field("reason");
  return verdict;
}

// FNV-1a: spreads real paths over file names; the path inside decides.
uint64_t fnv1a(std::string_view text) {
  uint64_t hash = 14695981039346656037ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

}  // namespace

VerdictCache::VerdictCache(std::string dir) : dir_(std::move(dir)) {
  if (dir_.empty()) {
    note_ = "no cache directory";
    return;
  }
  const std::string shown = display_path(dir_);
  if (!make_directories(dir_)) {
    note_ = fmt::format("cannot create '{}': {}", shown, std::strerror(errno));
    return;
  }
  struct stat status {};
  if (stat(dir_.c_str(), &status) != 0 || !S_ISDIR(status.st_mode)) {
    note_ = fmt::format("'{}' is not a directory", shown);
    return;
  }
  if (!trusted(status)) {
    note_ = fmt::format("refused '{}': {}", shown, why_untrusted(status));
    return;
  }
  usable_ = true;
  note_ = shown;
}

std::string VerdictCache::file_for(const std::string& real_path) const {
  return fmt::format("{}/{:016x}{}", dir_, fnv1a(real_path), kSuffix);
}

std::optional<Verdict> VerdictCache::find(const VerdictKey& key) const {
  if (!usable_) return std::nullopt;
  const std::optional<std::string> text = read_trusted(file_for(key.real_path));
  if (!text) return std::nullopt;
  return verdict_for(parse_fields(*text), key);
}

bool VerdictCache::store(const VerdictKey& key, const Verdict& verdict) const {
  if (!usable_) return false;
  std::string temporary = dir_ + "/" + std::string(kTemporaryPrefix) + "XXXXXX";
  const UniqueFd fd(mkostemp(temporary.data(), O_CLOEXEC));  // mode 0600
  if (!fd) return false;
  const std::string text = render(key, verdict);
  bool written = true;
  for (size_t at = 0; written && at < text.size();) {
    const ssize_t n = write(fd.get(), text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    written = n > 0;
    if (written) at += static_cast<size_t>(n);
  }
  if (!written || rename(temporary.c_str(), file_for(key.real_path).c_str()) != 0) {
    unlink(temporary.c_str());
    return false;
  }
  return true;
}

void VerdictCache::prune() const {
  if (!usable_) return;
  const std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(dir_.c_str()), &closedir);
  if (!dir) return;
  const time_t now = time(nullptr);
  while (const dirent* entry = readdir(dir.get())) {
    const std::string_view name = entry->d_name;
    const std::string file = dir_ + "/" + entry->d_name;
    struct stat status {};
    if (name.substr(0, kTemporaryPrefix.size()) == kTemporaryPrefix) {
      // Left by a process that died while storing; a live one renames within milliseconds.
      if (lstat(file.c_str(), &status) == 0 && now - status.st_mtime > 60) unlink(file.c_str());
      continue;
    }
    if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix) continue;
    const std::optional<std::string> text = read_trusted(file);
    if (!text) continue;
    const auto fields = parse_fields(*text);
    const auto path = fields.find("path");
    if (path != fields.end() && stat(path->second.c_str(), &status) != 0 && errno == ENOENT) unlink(file.c_str());
  }
}

}  // namespace omnirt::vetting
