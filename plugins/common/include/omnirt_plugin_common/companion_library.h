// A library installed next to the plugin that holds what the plugin must not
// link (DESIGN decision 4): the cpu plugin's TorchScript engine (libtorch),
// its gloo collectives. Found beside the plugin's own file, dlopened on first
// use only, it exports one function returning a C table whose first fields
// are `size_t struct_size; uint32_t api_version;`, checked once.
#ifndef OMNIRT_PLUGIN_COMMON_COMPANION_LIBRARY_H_
#define OMNIRT_PLUGIN_COMMON_COMPANION_LIBRARY_H_

#include <dlfcn.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::plugin_common {

/// What a companion library is, for loading it and for its error messages.
struct Companion {
  const char* backend;        ///< "cpu": prefixes messages
  const char* what;           ///< "the TorchScript engine"
  const char* feature;        ///< "modules": what is not supported without it
  const char* file;           ///< "libomnirt_cpu_engine.so", looked up next to the plugin
  const char* symbol;         ///< the exported table getter, `const Table* (*)(void)`
  uint32_t api_version;       ///< the table version the plugin speaks
  const char* how_to_build;   ///< why it may be missing: "(it is built only where ...)"
};

/// `file` in the folder of the plugin holding this code (dladdr on a function
/// of this header: with hidden visibility each plugin has its own copy).
inline std::string next_to_this_plugin(const char* file) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&next_to_this_plugin), &info) == 0 ||
      info.dli_fname == nullptr) {
    return file;
  }
  const std::string self = info.dli_fname;
  const size_t slash = self.rfind('/');
  return (slash == std::string::npos ? std::string() : self.substr(0, slash + 1)) + file;
}

template <class Table>
class CompanionLibrary {
 public:
  explicit CompanionLibrary(const Companion& companion)
      : CompanionLibrary(companion, next_to_this_plugin(companion.file)) {}
  CompanionLibrary(const Companion& companion, std::string path)
      : companion_(companion), path_(std::move(path)) {}
  // RTLD_NODELETE keeps the code mapped: what it handed out (outputs'
  // deleters, gloo's threads) may outlive us, and libtorch cannot be unloaded.
  ~CompanionLibrary() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  CompanionLibrary(const CompanionLibrary&) = delete;
  CompanionLibrary& operator=(const CompanionLibrary&) = delete;

  const std::string& path() const noexcept { return path_; }

  /// Cheap, for capabilities: the file is there and no load of it has failed.
  bool usable() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return failure_ == OMNIRT_STATUS_OK && (table_ != nullptr || access(path_.c_str(), R_OK) == 0);
  }

  /// The table when the library is loaded, else nullptr (loads nothing).
  const Table* loaded() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return table_;
  }

  /// The table, loading the library on the first call. Throws NOT_SUPPORTED
  /// when the file is not installed, UNAVAILABLE when it does not load (a
  /// dependency missing), INCOMPATIBLE for a foreign table; a failed load is
  /// not retried.
  const Table& table() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (table_ == nullptr && failure_ == OMNIRT_STATUS_OK) load_locked();
    if (table_ == nullptr) plugin::fail(failure_, failure_message_);
    return *table_;
  }

 private:
  void load_locked() {
    auto refuse = [this](omnirt_status status, const std::string& message) {
      failure_ = status;
      failure_message_ = std::string(companion_.backend) + ": " + message;
    };
    if (access(path_.c_str(), R_OK) != 0) {
      return refuse(OMNIRT_STATUS_NOT_SUPPORTED, std::string(companion_.feature) +
                                                     " are not supported: " + companion_.what +
                                                     " " + path_ + " is not installed " +
                                                     companion_.how_to_build);
    }
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle_ == nullptr) {
      return refuse(OMNIRT_STATUS_UNAVAILABLE,
                    std::string("cannot load ") + companion_.what + ": " + dlerror());
    }
    using Getter = const Table* (*)();
    auto get = reinterpret_cast<Getter>(dlsym(handle_, companion_.symbol));
    const Table* table = get != nullptr ? get() : nullptr;
    if (table == nullptr || table->struct_size < sizeof(Table) ||
        table->api_version != companion_.api_version) {
      return refuse(OMNIRT_STATUS_INCOMPATIBLE,
                    path_ + " is not " + companion_.what + " for this plugin (needs " +
                        companion_.symbol + " with API version " +
                        std::to_string(companion_.api_version) + ")");
    }
    table_ = table;
  }

  const Companion companion_;
  const std::string path_;
  mutable std::mutex mutex_;
  void* handle_ = nullptr;
  const Table* table_ = nullptr;
  omnirt_status failure_ = OMNIRT_STATUS_OK;
  std::string failure_message_;
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_COMPANION_LIBRARY_H_
