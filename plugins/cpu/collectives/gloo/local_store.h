// An omnirt_kv_store in memory, for the ranks of comm_create_local: they are
// threads of one process, so they meet without files or sockets.
#ifndef OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_LOCAL_STORE_H_
#define OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_LOCAL_STORE_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "omnirt/types.h"

namespace omnirt::cpu::gloo_lib {

class LocalStore {
 public:
  LocalStore();
  LocalStore(const LocalStore&) = delete;
  LocalStore& operator=(const LocalStore&) = delete;

  /// The C view; valid as long as this store.
  const omnirt_kv_store& kv() const { return kv_; }

 private:
  omnirt_status put(const char* key, const void* value, size_t size);
  omnirt_status get(const char* key, void* value, size_t capacity, size_t* size,
                    uint32_t timeout_ms);
  omnirt_status wait(const char* const* keys, size_t num_keys, uint32_t timeout_ms);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::vector<char>> values_;
  omnirt_kv_store kv_;
};

}  // namespace omnirt::cpu::gloo_lib

#endif  // OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_LOCAL_STORE_H_
