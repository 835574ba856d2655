// The live objects of one kind (streams, events, graphs) of one backend
// instance, keyed by the opaque handle callers hold. Looking handles up makes a
// stale or foreign handle INVALID_ARGUMENT instead of a crash, and the shared
// ownership keeps an object alive for a call that races with its destroy.
#ifndef OMNIRT_PLUGINS_CPU_CPU_HANDLE_REGISTRY_H_
#define OMNIRT_PLUGINS_CPU_CPU_HANDLE_REGISTRY_H_

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu {

template <class Object, class Handle>
class HandleRegistry {
 public:
  // `kind` names the handles in errors ("stream").
  explicit HandleRegistry(const char* kind) : kind_(kind) {}

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
    if (it == objects_.end()) fail_unknown(handle);
    return it->second;
  }

  // Takes the object out; throws INVALID_ARGUMENT for a handle that is not live.
  std::shared_ptr<Object> remove(Handle* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_.find(handle);
    if (it == objects_.end()) fail_unknown(handle);
    std::shared_ptr<Object> object = std::move(it->second);
    objects_.erase(it);
    return object;
  }

  std::vector<std::shared_ptr<Object>> all() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::shared_ptr<Object>> objects;
    objects.reserve(objects_.size());
    for (const auto& entry : objects_) objects.push_back(entry.second);
    return objects;
  }

 private:
  [[noreturn]] void fail_unknown(const Handle*) const {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 std::string("cpu: unknown ") + kind_ +
                     " handle (destroyed, or made by another backend)");
  }

  const char* const kind_;
  mutable std::mutex mutex_;
  std::unordered_map<const Handle*, std::shared_ptr<Object>> objects_;
};

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_CPU_HANDLE_REGISTRY_H_
