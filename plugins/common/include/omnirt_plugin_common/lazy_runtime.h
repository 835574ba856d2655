// A vendor runtime that is loaded on first real use and whose outcome is
// remembered (PLUGIN_RULES 4 and 5).
//
// Before the first use, availability() only looks for the library file. The
// first get() dlopens it and builds the Runtime; from then on availability()
// reports what that found: the runtime's own error text, or no devices.
//
// Runtime must provide `int32_t device_count() const` and
// `const std::string& library_path() const`; its factory throws
// omnirt::plugin::Error with an actionable message when it cannot start.
#ifndef OMNIRT_PLUGIN_COMMON_LAZY_RUNTIME_H_
#define OMNIRT_PLUGIN_COMMON_LAZY_RUNTIME_H_

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/library_locator.h"
#include "omnirt_plugin_common/once.h"

namespace omnirt::plugin_common {

template <class Runtime>
class LazyRuntime {
 public:
  using Factory = std::function<std::unique_ptr<Runtime>(DynamicLibrary)>;

  // `backend` prefixes error messages ("ascend").
  LazyRuntime(std::string backend, LibraryLocator locator, Factory factory)
      : backend_(std::move(backend)), locator_(std::move(locator)), factory_(std::move(factory)) {}

  // Cheap and side-effect free: never loads the library.
  plugin::Availability availability() const {
    if (!attempted_.load(std::memory_order_acquire)) {
      if (locator_.find()) return {true, {}};
      return {false, locator_.not_found_reason()};
    }
    if (runtime_ == nullptr) return {false, failure_};
    if (runtime_->device_count() == 0) {
      return {false, locator_.soname() + " (" + runtime_->library_path() + ") reports 0 devices"};
    }
    return {true, {}};
  }

  // The runtime, loading it on the first call; nullptr when it could not be
  // loaded (then and on every later call).
  Runtime* try_get() {
    once_([this] { load(); });
    return runtime_.get();
  }

  // As try_get(), but throws UNAVAILABLE with the reason instead of nullptr.
  Runtime& get() {
    if (Runtime* runtime = try_get()) return *runtime;
    plugin::fail(OMNIRT_STATUS_UNAVAILABLE, backend_ + ": " + failure_);
  }

  // The runtime if an earlier get() loaded it; never loads.
  Runtime* loaded() const noexcept {
    return attempted_.load(std::memory_order_acquire) ? runtime_.get() : nullptr;
  }

 private:
  void load() noexcept {
    try {
      std::string error;
      DynamicLibrary library = locator_.open(&error);
      if (library) {
        runtime_ = factory_(std::move(library));
      } else {
        failure_ = error;
      }
    } catch (const std::exception& e) {
      failure_ = e.what();
    } catch (...) {
      failure_ = "unknown error while loading " + locator_.soname();
    }
    attempted_.store(true, std::memory_order_release);
  }

  const std::string backend_;
  const LibraryLocator locator_;
  const Factory factory_;
  Once once_;
  // Written once inside once_, before attempted_ is released.
  std::unique_ptr<Runtime> runtime_;
  std::string failure_;
  std::atomic<bool> attempted_{false};
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_LAZY_RUNTIME_H_
