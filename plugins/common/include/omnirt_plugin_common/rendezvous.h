// How the ranks of a communicator meet through the embedder's omnirt_kv_store
// (comm_create): every rank announces itself and waits for the others, so
// that a rank that never comes is named; rank 0 publishes what its library
// needs shared (NCCL's unique id, HCCL's root info, CNCL's clique id). Every
// wait ends at the communicator's deadline with TIMEOUT naming who is missing.
#ifndef OMNIRT_PLUGIN_COMMON_RENDEZVOUS_H_
#define OMNIRT_PLUGIN_COMMON_RENDEZVOUS_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::plugin_common {

/// The time limit omnirt_comm_create_args::timeout_ms = 0 stands for.
constexpr uint32_t kDefaultCommTimeoutMs = 60000;

/// omnirt_comm_create_args::timeout_ms, with 0 meaning its documented default.
inline uint32_t comm_timeout_ms(const omnirt_comm_create_args& args) {
  return args.timeout_ms == 0 ? kDefaultCommTimeoutMs : args.timeout_ms;
}

/// "rank 2" or "ranks 1, 3".
inline std::string rank_list(const std::vector<int32_t>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) text += (i > 0 ? ", " : "") + std::to_string(ranks[i]);
  return text;
}

class Rendezvous {
 public:
  using Clock = std::chrono::steady_clock;

  /// The store, prefix, rank and size of `args`; the deadline is the time
  /// limit from now. `backend` prefixes messages.
  Rendezvous(std::string backend, const omnirt_comm_create_args& args)
      : Rendezvous(std::move(backend), *args.store, args.key_prefix, args.rank, args.nranks,
                   comm_timeout_ms(args)) {}
  Rendezvous(std::string backend, const omnirt_kv_store& store, std::string prefix, int32_t rank,
             int32_t nranks, uint32_t timeout_ms)
      : backend_(std::move(backend)),
        store_(store),
        prefix_(std::move(prefix)),
        rank_(rank),
        nranks_(nranks),
        timeout_ms_(timeout_ms),
        deadline_(Clock::now() + std::chrono::milliseconds(timeout_ms)) {}

  int32_t rank() const { return rank_; }
  int32_t nranks() const { return nranks_; }
  uint32_t timeout_ms() const { return timeout_ms_; }
  Clock::time_point deadline() const { return deadline_; }
  /// Milliseconds left until the deadline (0 once it passed).
  uint32_t remaining_ms() const {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now());
    return static_cast<uint32_t>(std::max<int64_t>(0, left.count()));
  }
  /// The store's own key for `key`: the communicator's prefix in front.
  std::string key(const std::string& key) const { return prefix_ + key; }

  void put(const std::string& key, const void* value, size_t size) const {
    const omnirt_status status = store_.put(store_.user_data, this->key(key).c_str(), value, size);
    if (status != OMNIRT_STATUS_OK) {
      plugin::fail(status, backend_ + ": the rendezvous store refused key '" + this->key(key) +
                               "' (" + std::to_string(status) + ")");
    }
  }

  /// The value of `key`, waiting up to `timeout_ms`; nothing when it did not
  /// appear in time. Throws for any other failure of the store.
  bool try_get(const std::string& key, uint32_t timeout_ms, std::vector<char>* value) const {
    const std::string full = this->key(key);
    value->resize(256);
    for (;;) {
      size_t size = 0;
      const omnirt_status status = store_.get(store_.user_data, full.c_str(), value->data(),
                                              value->size(), &size, timeout_ms);
      if (status == OMNIRT_STATUS_TIMEOUT) return false;
      if (status == OMNIRT_STATUS_OUT_OF_RANGE && size > value->size()) {
        value->resize(size);
        continue;
      }
      if (status != OMNIRT_STATUS_OK) {
        plugin::fail(status, backend_ + ": the rendezvous store failed to get key '" + full +
                                 "' (" + std::to_string(status) + ")");
      }
      value->resize(size);
      return true;
    }
  }

  /// Waits up to `timeout_ms` until every one of `keys` exists; false when
  /// some did not appear in time. Throws for any other failure of the store.
  bool wait_keys(const std::vector<std::string>& keys, uint32_t timeout_ms) const {
    std::vector<std::string> full;
    for (const std::string& k : keys) full.push_back(key(k));
    std::vector<const char*> pointers;
    for (const std::string& k : full) pointers.push_back(k.c_str());
    const omnirt_status status =
        store_.wait(store_.user_data, pointers.data(), pointers.size(), timeout_ms);
    if (status == OMNIRT_STATUS_OK) return true;
    if (status == OMNIRT_STATUS_TIMEOUT) return false;
    plugin::fail(status, backend_ + ": the rendezvous store failed to wait for keys (" +
                             std::to_string(status) + ")");
  }

  /// Announces this rank, then waits until every rank did. TIMEOUT naming
  /// the ranks that did not arrive by the deadline.
  void arrive() const {
    const std::string me = std::to_string(rank_);
    put(arrival_key(rank_), me.data(), me.size());
    std::vector<std::string> keys;
    for (int32_t r = 0; r < nranks_; ++r) keys.push_back(arrival_key(r));
    if (wait_keys(keys, remaining_ms())) return;
    std::vector<int32_t> missing;
    std::vector<char> value;
    for (int32_t r = 0; r < nranks_; ++r) {
      if (!try_get(keys[r], 0, &value)) missing.push_back(r);
    }
    plugin::fail(OMNIRT_STATUS_TIMEOUT,
                 backend_ + ": " + rank_list(missing) + " of " + std::to_string(nranks_) +
                     " did not arrive within " + std::to_string(timeout_ms_) +
                     " ms (rendezvous under key prefix '" + prefix_ + "')");
  }

  /// `bytes` of rank `root` under `key`: root publishes them, the others
  /// wait for them until the deadline (TIMEOUT naming root).
  std::vector<char> share_from(int32_t root, const std::string& key,
                               const std::vector<char>& bytes) const {
    if (rank_ == root) {
      put(key, bytes.data(), bytes.size());
      return bytes;
    }
    std::vector<char> value;
    if (!try_get(key, remaining_ms(), &value)) {
      plugin::fail(OMNIRT_STATUS_TIMEOUT, backend_ + ": " + rank_list({root}) +
                                              " did not publish '" + this->key(key) + "' within " +
                                              std::to_string(timeout_ms_) + " ms");
    }
    return value;
  }

 private:
  static std::string arrival_key(int32_t rank) { return "omnirt/arrived/" + std::to_string(rank); }

  const std::string backend_;
  const omnirt_kv_store& store_;
  const std::string prefix_;
  const int32_t rank_;
  const int32_t nranks_;
  const uint32_t timeout_ms_;
  const Clock::time_point deadline_;
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_RENDEZVOUS_H_
