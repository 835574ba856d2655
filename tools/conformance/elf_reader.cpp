#include "elf_reader.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

namespace omnirt::conformance {
namespace {

// Bounds-checked views into the file: a truncated or hostile file yields an
// error, never a read past the buffer.
class Image {
 public:
  explicit Image(std::vector<char> bytes) : bytes_(std::move(bytes)) {}
  template <class T>
  bool read(size_t offset, T* out) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T)) return false;
    std::memcpy(out, bytes_.data() + offset, sizeof(T));
    return true;
  }
  // A NUL-terminated string at `offset` inside [begin, begin + size).
  std::string string_at(size_t begin, size_t size, size_t offset) const {
    if (offset >= size || begin > bytes_.size() || bytes_.size() - begin < size) return "";
    const char* s = bytes_.data() + begin + offset;
    return std::string(s, strnlen(s, size - offset));
  }

 private:
  std::vector<char> bytes_;
};

bool section(const Image& image, const Elf64_Ehdr& eh, size_t index, Elf64_Shdr* out) {
  return index < eh.e_shnum && image.read(eh.e_shoff + index * eh.e_shentsize, out);
}

}  // namespace

DynamicInfo read_dynamic_info(const std::string& path) {
  DynamicInfo info;
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  std::vector<char> bytes(file ? static_cast<size_t>(file.tellg()) : 0);
  if (!file || !file.seekg(0).read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    info.error = "cannot read " + path;
    return info;
  }
  const Image image(std::move(bytes));
  Elf64_Ehdr eh;
  if (!image.read(0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    info.error = path + " is not an ELF file";
    return info;
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_shentsize != sizeof(Elf64_Shdr)) {
    info.error = path + " is not a 64-bit little-endian ELF file";
    return info;
  }
  bool found_dynsym = false;
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh, strtab;
    if (!section(image, eh, i, &sh) || !section(image, eh, sh.sh_link, &strtab)) continue;
    if (sh.sh_type == SHT_DYNSYM && sh.sh_entsize == sizeof(Elf64_Sym)) {
      found_dynsym = true;
      for (size_t k = 1; k < sh.sh_size / sizeof(Elf64_Sym); ++k) {
        Elf64_Sym sym;
        if (!image.read(sh.sh_offset + k * sizeof sym, &sym)) break;
        const std::string name = image.string_at(strtab.sh_offset, strtab.sh_size, sym.st_name);
        const unsigned bind = ELF64_ST_BIND(sym.st_info);
        if (name.empty() || bind == STB_LOCAL) continue;
        if (sym.st_shndx == SHN_UNDEF) {
          info.imported.push_back(name);
        } else if (ELF64_ST_VISIBILITY(sym.st_other) != STV_HIDDEN &&
                   ELF64_ST_VISIBILITY(sym.st_other) != STV_INTERNAL &&
                   !(sym.st_shndx == SHN_ABS && sym.st_value == 0)) {
          // SHN_ABS at 0 is a version node of a version script, not a symbol.
          info.exported.push_back(name);
        }
      }
    } else if (sh.sh_type == SHT_DYNAMIC && sh.sh_entsize == sizeof(Elf64_Dyn)) {
      for (size_t k = 0; k < sh.sh_size / sizeof(Elf64_Dyn); ++k) {
        Elf64_Dyn dyn;
        if (!image.read(sh.sh_offset + k * sizeof dyn, &dyn) || dyn.d_tag == DT_NULL) break;
        if (dyn.d_tag == DT_NEEDED) {
          info.needed.push_back(
              image.string_at(strtab.sh_offset, strtab.sh_size, dyn.d_un.d_val));
        }
      }
    }
  }
  if (!found_dynsym) info.error = path + " has no dynamic symbol table";
  return info;
}

}  // namespace omnirt::conformance
