// A dlopen'ed vendor library, closed when the last owner goes.
#ifndef OMNIRT_PLUGIN_COMMON_DYNAMIC_LIBRARY_H_
#define OMNIRT_PLUGIN_COMMON_DYNAMIC_LIBRARY_H_

#include <dlfcn.h>
#include <link.h>

#include <string>
#include <utility>

namespace omnirt::plugin_common {

class DynamicLibrary {
 public:
  DynamicLibrary() = default;
  DynamicLibrary(DynamicLibrary&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept {
    if (this != &other) {
      close();
      handle_ = std::exchange(other.handle_, nullptr);
      path_ = std::move(other.path_);
    }
    return *this;
  }
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary() { close(); }

  // Opens `file` (a path, or a bare soname for the loader's search). On
  // failure returns an empty library and stores dlerror()'s text in *error.
  // RTLD_NOW: a vendor library with unresolved dependencies fails here, at
  // load, rather than in the middle of a call. RTLD_LOCAL: its symbols must not
  // interpose on other plugins' (PLUGIN_RULES 11).
  static DynamicLibrary open(const std::string& file, std::string* error) {
    DynamicLibrary lib;
    dlerror();
    lib.handle_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib.handle_ == nullptr) {
      const char* text = dlerror();
      *error = text != nullptr ? text : "dlopen failed";
      return lib;
    }
    lib.path_ = resolved_path(lib.handle_, file);
    return lib;
  }

  explicit operator bool() const noexcept { return handle_ != nullptr; }
  // The file the loader really opened (a bare soname resolved to its path).
  const std::string& path() const noexcept { return path_; }

  // The address of `name`, or nullptr when the library does not export it.
  void* symbol(const char* name) const noexcept {
    return handle_ != nullptr ? dlsym(handle_, name) : nullptr;
  }

 private:
  static std::string resolved_path(void* handle, const std::string& fallback) {
    link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
        map->l_name[0] != '\0') {
      return map->l_name;
    }
    return fallback;
  }

  void close() noexcept {
    if (handle_ != nullptr) dlclose(handle_);
    handle_ = nullptr;
  }

  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_DYNAMIC_LIBRARY_H_
