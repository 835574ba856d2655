// RAII owner of one dlopen handle.
#ifndef OMNIRT_CORE_SHARED_LIBRARY_H_
#define OMNIRT_CORE_SHARED_LIBRARY_H_

#include <string>

namespace omnirt {

/// A dlopen'ed shared object, closed when the owner goes away. Move-only.
class SharedLibrary {
 public:
  SharedLibrary() noexcept = default;
  ~SharedLibrary();
  SharedLibrary(SharedLibrary&& other) noexcept;
  SharedLibrary& operator=(SharedLibrary&& other) noexcept;
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  /// Opens `path`; on failure returns an empty library and sets *error to dlerror().
  static SharedLibrary open(const std::string& path, std::string* error);

  /// Address of `symbol`, or nullptr (with *error set) when it is not exported.
  void* symbol(const char* symbol, std::string* error) const;

  explicit operator bool() const noexcept { return handle_ != nullptr; }

 private:
  explicit SharedLibrary(void* handle) noexcept : handle_(handle) {}
  void close() noexcept;

  void* handle_ = nullptr;
};

}  // namespace omnirt

#endif  // OMNIRT_CORE_SHARED_LIBRARY_H_
