#include "module_format.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <stdexcept>

namespace omnirt::run {
namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint32_t kZip64EndOfDirectory = 0x06064b50;
constexpr uint32_t kDirectoryEntry = 0x02014b50;
constexpr size_t kEndOfDirectorySize = 22;
constexpr size_t kMaxComment = 0xffff;

uint64_t little_endian(const std::string& bytes, size_t at, int size) {
  if (at + size_t(size) > bytes.size()) throw std::runtime_error("truncated zip structure");
  uint64_t v = 0;
  for (int i = size - 1; i >= 0; --i) v = (v << 8) | uint8_t(bytes[at + size_t(i)]);
  return v;
}

std::string read_at(std::ifstream& in, uint64_t offset, uint64_t size) {
  std::string bytes(size, '\0');
  in.seekg(std::streamoff(offset));
  in.read(bytes.data(), std::streamsize(size));
  if (uint64_t(in.gcount()) != size) throw std::runtime_error("truncated zip archive");
  return bytes;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A top-level name, or one under the archive's root folder ("model/...").
bool has_entry(const std::vector<std::string>& names, const std::string& inner) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) {
    return n.compare(0, inner.size(), inner) == 0 || n.find("/" + inner) != std::string::npos;
  });
}

}  // namespace

std::vector<std::string> zip_entry_names(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot open " + path);
  const uint64_t file_size = uint64_t(in.tellg());
  if (file_size < kEndOfDirectorySize) throw std::runtime_error("not a zip archive (too short)");
  // The end-of-directory record lies in the last 22 bytes plus a comment.
  const uint64_t tail_size = std::min<uint64_t>(file_size, kEndOfDirectorySize + kMaxComment);
  const std::string tail = read_at(in, file_size - tail_size, tail_size);
  size_t end = std::string::npos;
  for (size_t i = tail.size() - kEndOfDirectorySize + 1; i-- > 0;) {
    if (little_endian(tail, i, 4) == kEndOfDirectory) {
      end = i;
      break;
    }
  }
  if (end == std::string::npos) throw std::runtime_error("not a zip archive (no central directory)");
  uint64_t entries = little_endian(tail, end + 10, 2);
  uint64_t directory_size = little_endian(tail, end + 12, 4);
  uint64_t directory_offset = little_endian(tail, end + 16, 4);
  if (entries == 0xffff || directory_size == 0xffffffff || directory_offset == 0xffffffff) {
    // Zip64: a locator just before the record gives the zip64 record's offset.
    if (end < 20 || little_endian(tail, end - 20, 4) != kZip64Locator) {
      throw std::runtime_error("zip64 archive without its locator");
    }
    const std::string record = read_at(in, little_endian(tail, end - 20 + 8, 8), 56);
    if (little_endian(record, 0, 4) != kZip64EndOfDirectory) {
      throw std::runtime_error("zip64 archive without its end-of-directory record");
    }
    entries = little_endian(record, 32, 8);
    directory_size = little_endian(record, 40, 8);
    directory_offset = little_endian(record, 48, 8);
  }
  if (directory_offset + directory_size > file_size) throw std::runtime_error("truncated zip archive");
  const std::string directory = read_at(in, directory_offset, directory_size);
  std::vector<std::string> names;
  size_t at = 0;
  for (uint64_t i = 0; i < entries; ++i) {
    if (little_endian(directory, at, 4) != kDirectoryEntry) {
      throw std::runtime_error("corrupt zip central directory");
    }
    const size_t name_size = size_t(little_endian(directory, at + 28, 2));
    const size_t extra_size = size_t(little_endian(directory, at + 30, 2));
    const size_t comment_size = size_t(little_endian(directory, at + 32, 2));
    if (at + 46 + name_size > directory.size()) throw std::runtime_error("truncated zip structure");
    names.push_back(directory.substr(at + 46, name_size));
    at += 46 + name_size + extra_size + comment_size;
  }
  return names;
}

std::string module_format_of(const std::string& path) {
  try {
    const std::vector<std::string> names = zip_entry_names(path);
    if (has_entry(names, "data/aotinductor/")) return "aoti";
    const bool pickle = std::any_of(names.begin(), names.end(), [](const std::string& n) {
      return n == "data.pkl" || ends_with(n, "/data.pkl");
    });
    if (pickle && has_entry(names, "code/")) return "torchscript";
  } catch (const std::runtime_error&) {  // not a readable zip archive
  }
  return ends_with(path, ".pt2") ? "aoti" : "torchscript";
}

}  // namespace omnirt::run
