// omnirt_file_store_create / omnirt_file_store_destroy: the host's ready
// omnirt_kv_store. Live stores are remembered so that destroy can ignore a
// pointer it did not make instead of freeing it.
#include <memory>
#include <mutex>
#include <unordered_map>

#include "error.h"
#include "file_store.h"
#include "omnirt/host.h"

namespace {

struct LiveStores {
  std::mutex mutex;
  std::unordered_map<omnirt_kv_store*, std::unique_ptr<omnirt::FileStore>> stores;
};

LiveStores& live_stores() {
  static LiveStores* live = new LiveStores;  // never destroyed: usable in atexit handlers too
  return *live;
}

}  // namespace

omnirt_status omnirt_file_store_create(const char* directory, omnirt_kv_store** store) {
  constexpr const char* kCall = "omnirt_file_store_create";
  if (store == nullptr) return omnirt::null_argument(kCall, "store");
  *store = nullptr;
  if (directory == nullptr) return omnirt::null_argument(kCall, "directory");
  std::unique_ptr<omnirt::FileStore> made;
  OMNIRT_RETURN_IF_ERROR(omnirt::FileStore::open(directory, &made));
  return omnirt::guard_api(kCall, [&]() -> omnirt_status {
    LiveStores& live = live_stores();
    std::lock_guard<std::mutex> lock(live.mutex);
    omnirt_kv_store* kv = made->kv();
    live.stores.emplace(kv, std::move(made));
    *store = kv;
    return OMNIRT_STATUS_OK;
  });
}

void omnirt_file_store_destroy(omnirt_kv_store* store) {
  if (store == nullptr) return;
  std::unique_ptr<omnirt::FileStore> owned;
  LiveStores& live = live_stores();
  std::lock_guard<std::mutex> lock(live.mutex);
  const auto it = live.stores.find(store);
  if (it == live.stores.end()) return;
  owned = std::move(it->second);
  live.stores.erase(it);
}
