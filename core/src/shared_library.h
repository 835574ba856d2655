// RAII owner of one dlopen handle.
#ifndef OMNIRT_CORE_SHARED_LIBRARY_H_
#define OMNIRT_CORE_SHARED_LIBRARY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

  /// Where `address` lies when that is not in this library's own code (an
  /// executable segment of its file): "into '<file>'", "into the library's own
  /// data, not its code", "to 0x..., which no loaded file maps"; nothing when
  /// it is in its code.
  std::optional<std::string> outside_own_code(const void* address) const;

  explicit operator bool() const noexcept { return handle_ != nullptr; }

 private:
  explicit SharedLibrary(void* handle) noexcept : handle_(handle) {}
  void close() noexcept;

  void* handle_ = nullptr;
  /// [begin, end) of the library's executable segments.
  std::vector<std::pair<uintptr_t, uintptr_t>> code_;
  /// The library's file as the dynamic linker names it (dladdr's dli_fname).
  std::string file_;
};

}  // namespace omnirt

#endif  // OMNIRT_CORE_SHARED_LIBRARY_H_
