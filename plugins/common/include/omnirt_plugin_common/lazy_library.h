// A vendor library one feature of a backend needs (the collective libraries:
// NCCL, HCCL, CNCL): looked for without loading it, for capabilities; dlopened
// and its symbols resolved on the feature's first use; the outcome kept
// (PLUGIN_RULES 4 and 5). Unless a path was given (the backend option), one
// already mapped into the process (a framework loaded it) is used as it is,
// so that both share its state.
#ifndef OMNIRT_PLUGIN_COMMON_LAZY_LIBRARY_H_
#define OMNIRT_PLUGIN_COMMON_LAZY_LIBRARY_H_

#include <dlfcn.h>

#include <functional>
#include <string>
#include <utility>

#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/library_locator.h"
#include "omnirt_plugin_common/once.h"
#include "omnirt_plugin_common/symbol_table.h"

namespace omnirt::plugin_common {

template <class Symbols>
class LazyLibrary {
 public:
  /// After loading: "" when the library is usable, else why not (too old...).
  using Check = std::function<std::string(const Symbols&, const DynamicLibrary&)>;

  /// `what` prefixes failures ("cuda: collectives"); `hint` follows a
  /// library that is not found ("install libnccl2").
  LazyLibrary(std::string what, LibraryLocator locator, std::string hint, Check check = nullptr)
      : what_(std::move(what)), locator_(std::move(locator)), hint_(std::move(hint)), check_(std::move(check)) {}
  LazyLibrary(const LazyLibrary&) = delete;
  LazyLibrary& operator=(const LazyLibrary&) = delete;

  /// Is there a library to load? Looks once; loads nothing.
  bool present() const {
    found_once_([this] { found_ = (!locator_.pinned() && mapped()) || locator_.find().has_value(); });
    return found_;
  }

  /// The symbols, loading the library on the first call. Throws UNAVAILABLE
  /// with the reason, then and on every later call.
  const Symbols& get() {
    loaded_once_([this] { load(); });
    if (!error_.empty()) plugin::fail(OMNIRT_STATUS_UNAVAILABLE, what_ + ": " + error_);
    return symbols_;
  }

  /// The file loaded; "" before get().
  const std::string& path() const { return library_.path(); }

 private:
  bool mapped() const {
    void* handle = dlopen(locator_.soname().c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle != nullptr) dlclose(handle);
    return handle != nullptr;
  }

  void load() {
    std::string why;
    library_ = !locator_.pinned() && mapped() ? DynamicLibrary::open(locator_.soname(), &why) : locator_.open(&why);
    if (!library_) {
      error_ = why + " (" + hint_ + ")";
      return;
    }
    SymbolResolver resolver(library_);
    symbols_.resolve(resolver);
    const std::string missing = resolver.missing_required();
    if (!missing.empty()) {
      error_ = library_.path() + " lacks " + missing + " (too old?)";
    } else if (check_) {
      error_ = check_(symbols_, library_);
    }
  }

  const std::string what_;
  const LibraryLocator locator_;
  const std::string hint_;
  const Check check_;
  mutable Once found_once_;
  mutable bool found_ = false;
  Once loaded_once_;
  DynamicLibrary library_;
  Symbols symbols_;
  std::string error_;
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_LAZY_LIBRARY_H_
