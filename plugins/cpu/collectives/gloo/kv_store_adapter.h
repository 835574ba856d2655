// gloo's rendezvous Store over the embedder's omnirt_kv_store: what gloo's
// connectFullMesh exchanges (each rank's addresses) goes through the store the
// embedder passed to comm_create, under the communicator's key prefix, and
// every wait ends at the communicator's rendezvous deadline.
#ifndef OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_KV_STORE_ADAPTER_H_
#define OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_KV_STORE_ADAPTER_H_

#include <gloo/rendezvous/store.h>

#include <chrono>
#include <string>
#include <vector>

#include "omnirt_plugin_common/rendezvous.h"

namespace omnirt::cpu::gloo_lib {

class KvStoreAdapter : public gloo::rendezvous::Store {
 public:
  /// Keys go to `rendezvous`'s store as <prefix>gloo/<key>.
  explicit KvStoreAdapter(const plugin_common::Rendezvous& rendezvous) : rendezvous_(rendezvous) {}

  void set(const std::string& key, const std::vector<char>& data) override;
  /// Waits until the deadline; TIMEOUT naming the rank gloo keyed it by.
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;

 private:
  static std::string gloo_key(const std::string& key) { return "gloo/" + key; }

  const plugin_common::Rendezvous& rendezvous_;
};

}  // namespace omnirt::cpu::gloo_lib

#endif  // OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_KV_STORE_ADAPTER_H_
