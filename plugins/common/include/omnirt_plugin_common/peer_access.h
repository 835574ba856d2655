// Which devices can copy straight to which, from the vendor's peer-access query
// asked once per pair when the runtime loads. OMNIRT_FEATURE_PEER_COPY is
// claimed only when every pair can, so the bit holds for any two devices.
#ifndef OMNIRT_PLUGIN_COMMON_PEER_ACCESS_H_
#define OMNIRT_PLUGIN_COMMON_PEER_ACCESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::plugin_common {

class PeerAccess {
 public:
  // No device reaches another: the vendor library cannot tell.
  PeerAccess() = default;

  // `can_reach(from, to)` asks the vendor.
  template <class Query>
  PeerAccess(int32_t devices, Query can_reach) : devices_(devices) {
    reach_.assign(static_cast<size_t>(devices) * devices, false);
    for (int32_t from = 0; from < devices; ++from) {
      for (int32_t to = 0; to < devices; ++to) {
        if (from != to) reach_[index(from, to)] = can_reach(from, to);
      }
    }
  }

  bool every_pair() const {
    for (int32_t from = 0; from < devices_; ++from) {
      for (int32_t to = 0; to < devices_; ++to) {
        if (from != to && !reach_[index(from, to)]) return false;
      }
    }
    return devices_ > 0;
  }

  // Throws NOT_SUPPORTED naming the devices unless `from` reaches `to`.
  void require(const std::string& backend, int32_t from, int32_t to) const {
    if (reach_.empty() || !reach_[index(from, to)]) {
      plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED,
                   backend + ": device " + std::to_string(from) + " has no peer access to device " +
                       std::to_string(to) + "; stage the copy through the host");
    }
  }

 private:
  size_t index(int32_t from, int32_t to) const {
    return static_cast<size_t>(from) * devices_ + static_cast<size_t>(to);
  }

  int32_t devices_ = 0;
  std::vector<bool> reach_;
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_PEER_ACCESS_H_
