#include "shared_library.h"

#include <dlfcn.h>

#include <utility>

namespace omnirt {

SharedLibrary::~SharedLibrary() { close(); }

SharedLibrary::SharedLibrary(SharedLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)) {}

SharedLibrary& SharedLibrary::operator=(SharedLibrary&& other) noexcept {
  if (this != &other) {
    close();
    handle_ = std::exchange(other.handle_, nullptr);
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
  }
  return SharedLibrary(handle);
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

void SharedLibrary::close() noexcept {
  if (handle_ != nullptr) {
    dlclose(handle_);
    handle_ = nullptr;
  }
}

}  // namespace omnirt
