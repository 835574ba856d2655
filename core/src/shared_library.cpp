#include "shared_library.h"

#include <dlfcn.h>
#include <link.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <utility>

namespace omnirt {
namespace {

struct SegmentSearch {
  const link_map* library;
  std::vector<std::pair<uintptr_t, uintptr_t>>* code;
};

// dl_iterate_phdr callback: the executable PT_LOAD segments of the object
// whose load bias and name are the library's.
int collect_code(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<SegmentSearch*>(data);
  const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  const char* wanted = search->library->l_name != nullptr ? search->library->l_name : "";
  if (info->dlpi_addr != search->library->l_addr || std::strcmp(name, wanted) != 0) return 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) == 0) continue;
    const uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    search->code->emplace_back(begin, begin + segment.p_memsz);
  }
  return 1;
}

std::string hex(const void* address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIxPTR, reinterpret_cast<uintptr_t>(address));
  return text;
}

}  // namespace

SharedLibrary::~SharedLibrary() { close(); }

SharedLibrary::SharedLibrary(SharedLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      code_(std::move(other.code_)),
      file_(std::move(other.file_)) {}

SharedLibrary& SharedLibrary::operator=(SharedLibrary&& other) noexcept {
  if (this != &other) {
    close();
    handle_ = std::exchange(other.handle_, nullptr);
    code_ = std::move(other.code_);
    file_ = std::move(other.file_);
  }
  return *this;
}

SharedLibrary SharedLibrary::open(const std::string& path, std::string* error) {
  // RTLD_NOW: an unresolved symbol fails here, as a diagnosable load error,
  // not later as a crash in the middle of a routed call.
  // RTLD_LOCAL: a plugin's symbols never interpose on the embedder's or on
  // another plugin's (PLUGIN_RULES 2 and 11).
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* message = dlerror();
    *error = message != nullptr ? message : "dlopen failed";
    return SharedLibrary();
  }
  SharedLibrary library(handle);
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr) {
    SegmentSearch search{map, &library.code_};
    dl_iterate_phdr(&collect_code, &search);
    library.file_ = map->l_name != nullptr ? map->l_name : "";
  }
  return library;
}

void* SharedLibrary::symbol(const char* symbol, std::string* error) const {
  dlerror();  // clear a stale error: a symbol's value may legitimately be NULL
  void* address = dlsym(handle_, symbol);
  if (address == nullptr) {
    const char* message = dlerror();
    *error = message != nullptr ? message : std::string("symbol '") + symbol + "' is NULL";
  }
  return address;
}

std::optional<std::string> SharedLibrary::outside_own_code(const void* address) const {
  const auto value = reinterpret_cast<uintptr_t>(address);
  for (const auto& [begin, end] : code_) {
    if (value >= begin && value < end) return std::nullopt;
  }
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) {
    return "to " + hex(address) + ", which no loaded file maps";
  }
  if (file_ == info.dli_fname) return std::string("into the library's own data, not its code");
  return std::string("into '") + info.dli_fname + "'";
}

void SharedLibrary::close() noexcept {
  if (handle_ != nullptr) {
    dlclose(handle_);
    handle_ = nullptr;
  }
  code_.clear();
  file_.clear();
}

}  // namespace omnirt
