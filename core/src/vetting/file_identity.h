// What identifies the content of a plugin file for the verdict cache,
// cheaply: its inode and times, and the linker's hash of its content.
#ifndef OMNIRT_CORE_VETTING_FILE_IDENTITY_H_
#define OMNIRT_CORE_VETTING_FILE_IDENTITY_H_

#include <cstdint>
#include <string>

namespace omnirt::vetting {

struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  /// Changes with every write or metadata change and, unlike mtime, cannot
  /// be set back by the file's owner (touch -r): a rewrite that keeps size
  /// and mtime still changes the identity.
  int64_t ctime_ns = 0;
  /// The GNU build-id note in hex (the linker's hash of the file's content,
  /// read from the ELF headers), or "" when the file has none. Hashing the
  /// whole file would cost milliseconds per plugin on every start.
  std::string build_id;

  bool operator==(const FileIdentity& other) const noexcept;
};

/// The identity of the file at `path`; false when it cannot be opened.
bool identify_file(const std::string& path, FileIdentity* identity);

}  // namespace omnirt::vetting

#endif  // OMNIRT_CORE_VETTING_FILE_IDENTITY_H_
