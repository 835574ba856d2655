// The live streams or events of one backend instance, keyed by the opaque
// handle callers hold. A stale or foreign handle becomes INVALID_ARGUMENT
// instead of a crash, and shared ownership keeps an object alive for a call
// that races with its destroy.
#ifndef OMNIRT_PLUGIN_COMMON_HANDLE_REGISTRY_H_
#define OMNIRT_PLUGIN_COMMON_HANDLE_REGISTRY_H_

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::plugin_common {

template <class Object, class Handle>
class HandleRegistry {
 public:
  // `backend` and `kind` name the handles in errors: "ascend", "stream".
  HandleRegistry(const char* backend, const char* kind) : backend_(backend), kind_(kind) {}

  Handle* add(std::shared_ptr<Object> object) {
    Handle* handle = reinterpret_cast<Handle*>(object.get());
    std::lock_guard<std::mutex> lock(mutex_);
    objects_.emplace(handle, std::move(object));
    return handle;
  }

  // Throws INVALID_ARGUMENT for a handle that is not live.
  std::shared_ptr<Object> find(Handle* handle) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_.find(handle);
    if (it == objects_.end()) fail_unknown();
    return it->second;
  }

  // Takes the object out; throws INVALID_ARGUMENT for a handle that is not live.
  std::shared_ptr<Object> remove(Handle* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_.find(handle);
    if (it == objects_.end()) fail_unknown();
    std::shared_ptr<Object> object = std::move(it->second);
    objects_.erase(it);
    return object;
  }

  // Puts back an object whose vendor destroy failed, so the handle stays usable.
  void restore(Handle* handle, std::shared_ptr<Object> object) {
    std::lock_guard<std::mutex> lock(mutex_);
    objects_.emplace(handle, std::move(object));
  }

  // Every live object, left in place (e.g. to synchronize each stream).
  std::vector<std::shared_ptr<Object>> all() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::shared_ptr<Object>> objects;
    objects.reserve(objects_.size());
    for (const auto& entry : objects_) objects.push_back(entry.second);
    return objects;
  }

  // Takes out every object, for a backend that is being destroyed.
  std::vector<std::shared_ptr<Object>> take_all() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::shared_ptr<Object>> objects;
    objects.reserve(objects_.size());
    for (auto& entry : objects_) objects.push_back(std::move(entry.second));
    objects_.clear();
    return objects;
  }

 private:
  [[noreturn]] void fail_unknown() const {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string(backend_) + ": unknown " + kind_ +
                                                     " handle (destroyed, or made by another backend)");
  }

  const char* const backend_;
  const char* const kind_;
  mutable std::mutex mutex_;
  std::unordered_map<const Handle*, std::shared_ptr<Object>> objects_;
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_HANDLE_REGISTRY_H_
