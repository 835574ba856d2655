#include "vetting/file_identity.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "vetting/unique_fd.h"

namespace omnirt::vetting {
namespace {

/// Notes are small; a PT_NOTE larger than this is not read.
constexpr size_t kMaxNotesBytes = 64 * 1024;
/// A build-id is 8 to 64 bytes (sha1: 20).
constexpr size_t kMaxBuildIdBytes = 64;

bool read_at(int fd, void* buffer, size_t size, uint64_t offset) {
  return pread(fd, buffer, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
}

size_t align4(size_t n) { return (n + 3) & ~size_t{3}; }

// The descriptor of an NT_GNU_BUILD_ID note named "GNU" in `notes`, in hex.
std::string build_id_in(const std::vector<unsigned char>& notes) {
  size_t at = 0;
  while (at + sizeof(Elf64_Nhdr) <= notes.size()) {
    Elf64_Nhdr header;
    std::memcpy(&header, notes.data() + at, sizeof header);
    const size_t name_at = at + sizeof header;
    const size_t desc_at = name_at + align4(header.n_namesz);
    const size_t next = desc_at + align4(header.n_descsz);
    if (header.n_namesz > notes.size() || header.n_descsz > notes.size() || next > notes.size()) break;
    if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
        std::memcmp(notes.data() + name_at, "GNU", 4) == 0 && header.n_descsz <= kMaxBuildIdBytes) {
      static constexpr char kHex[] = "0123456789abcdef";
      std::string hex;
      for (size_t i = 0; i < header.n_descsz; ++i) {
        hex.push_back(kHex[notes[desc_at + i] >> 4]);
        hex.push_back(kHex[notes[desc_at + i] & 0xF]);
      }
      return hex;
    }
    at = next;
  }
  return {};
}

// The build-id of a 64-bit little-endian ELF file, from its PT_NOTE segments.
std::string read_build_id(int fd, uint64_t file_size) {
  Elf64_Ehdr elf;
  if (!read_at(fd, &elf, sizeof elf, 0) || std::memcmp(elf.e_ident, ELFMAG, SELFMAG) != 0 ||
      elf.e_ident[EI_CLASS] != ELFCLASS64 || elf.e_phentsize != sizeof(Elf64_Phdr) || elf.e_phnum > 256) {
    return {};
  }
  std::vector<Elf64_Phdr> segments(elf.e_phnum);
  if (!read_at(fd, segments.data(), segments.size() * sizeof(Elf64_Phdr), elf.e_phoff)) return {};
  for (const Elf64_Phdr& segment : segments) {
    if (segment.p_type != PT_NOTE || segment.p_filesz > kMaxNotesBytes ||
        segment.p_offset > file_size || segment.p_filesz > file_size - segment.p_offset) {
      continue;
    }
    std::vector<unsigned char> notes(segment.p_filesz);
    if (!read_at(fd, notes.data(), notes.size(), segment.p_offset)) continue;
    std::string id = build_id_in(notes);
    if (!id.empty()) return id;
  }
  return {};
}

int64_t nanoseconds(const timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

}  // namespace

bool FileIdentity::operator==(const FileIdentity& other) const noexcept {
  return device == other.device && inode == other.inode && size == other.size && mtime_ns == other.mtime_ns &&
         ctime_ns == other.ctime_ns && build_id == other.build_id;
}

bool identify_file(const std::string& path, FileIdentity* identity) {
  const UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat status {};
  if (fd.get() < 0 || fstat(fd.get(), &status) != 0 || !S_ISREG(status.st_mode)) return false;
  identity->device = status.st_dev;
  identity->inode = status.st_ino;
  identity->size = static_cast<uint64_t>(status.st_size);
  identity->mtime_ns = nanoseconds(status.st_mtim);
  identity->ctime_ns = nanoseconds(status.st_ctim);
  identity->build_id = read_build_id(fd.get(), identity->size);
  return true;
}

}  // namespace omnirt::vetting
