#include "kv_store_adapter.h"

#include <algorithm>

namespace omnirt::cpu::gloo_lib {
namespace {

// gloo's connectFullMesh keys each rank's addresses by the rank's number.
std::string whose(const std::string& key) {
  const bool number = !key.empty() && std::all_of(key.begin(), key.end(), ::isdigit);
  return number ? "rank " + key + "'s addresses" : "key '" + key + "'";
}

}  // namespace

void KvStoreAdapter::set(const std::string& key, const std::vector<char>& data) {
  rendezvous_.put(gloo_key(key), data.data(), data.size());
}

std::vector<char> KvStoreAdapter::get(const std::string& key) {
  std::vector<char> value;
  if (!rendezvous_.try_get(gloo_key(key), rendezvous_.remaining_ms(), &value)) {
    plugin::fail(OMNIRT_STATUS_TIMEOUT, "cpu: gloo's rendezvous: " + whose(key) +
                                            " did not appear within " +
                                            std::to_string(rendezvous_.timeout_ms()) + " ms");
  }
  return value;
}

void KvStoreAdapter::wait(const std::vector<std::string>& keys) {
  for (const std::string& key : keys) get(key);
}

void KvStoreAdapter::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds&) {
  wait(keys);  // the communicator's deadline bounds every wait, whatever gloo asks
}

}  // namespace omnirt::cpu::gloo_lib
