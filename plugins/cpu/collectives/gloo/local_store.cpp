#include "local_store.h"

#include <chrono>
#include <cstring>

namespace omnirt::cpu::gloo_lib {
namespace {

std::chrono::steady_clock::time_point deadline_after(uint32_t timeout_ms) {
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
}

}  // namespace

LocalStore::LocalStore() {
  kv_.struct_size = sizeof kv_;
  kv_.user_data = this;
  kv_.put = [](void* self, const char* key, const void* value, size_t size) {
    return static_cast<LocalStore*>(self)->put(key, value, size);
  };
  kv_.get = [](void* self, const char* key, void* value, size_t capacity, size_t* size,
               uint32_t timeout_ms) {
    return static_cast<LocalStore*>(self)->get(key, value, capacity, size, timeout_ms);
  };
  kv_.wait = [](void* self, const char* const* keys, size_t num_keys, uint32_t timeout_ms) {
    return static_cast<LocalStore*>(self)->wait(keys, num_keys, timeout_ms);
  };
}

// The callbacks are called through C: nothing may escape them.
omnirt_status LocalStore::put(const char* key, const void* value, size_t size) {
  try {
    const char* bytes = static_cast<const char*>(value);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      values_[key].assign(bytes, bytes + size);
    }
    changed_.notify_all();
    return OMNIRT_STATUS_OK;
  } catch (...) {
    return OMNIRT_STATUS_OUT_OF_MEMORY;
  }
}

omnirt_status LocalStore::get(const char* key, void* value, size_t capacity, size_t* size,
                              uint32_t timeout_ms) {
  try {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::string name = key;
    if (!changed_.wait_until(lock, deadline_after(timeout_ms),
                             [&] { return values_.count(name) > 0; })) {
      return OMNIRT_STATUS_TIMEOUT;
    }
    const std::vector<char>& stored = values_[name];
    *size = stored.size();
    if (stored.size() > capacity) return OMNIRT_STATUS_OUT_OF_RANGE;
    if (!stored.empty()) std::memcpy(value, stored.data(), stored.size());
    return OMNIRT_STATUS_OK;
  } catch (...) {
    return OMNIRT_STATUS_OUT_OF_MEMORY;
  }
}

omnirt_status LocalStore::wait(const char* const* keys, size_t num_keys, uint32_t timeout_ms) {
  try {
    std::unique_lock<std::mutex> lock(mutex_);
    const bool all = changed_.wait_until(lock, deadline_after(timeout_ms), [&] {
      for (size_t i = 0; i < num_keys; ++i) {
        if (values_.count(keys[i]) == 0) return false;
      }
      return true;
    });
    return all ? OMNIRT_STATUS_OK : OMNIRT_STATUS_TIMEOUT;
  } catch (...) {
    return OMNIRT_STATUS_OUT_OF_MEMORY;
  }
}

}  // namespace omnirt::cpu::gloo_lib
