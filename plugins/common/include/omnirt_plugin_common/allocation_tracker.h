// The memory one backend instance handed out: which device owns a pointer
// (also one inside a block), how large its block is, statistics per device in
// the units of omnirt_memory_stats, and what is left to release at destroy.
// Pinned host blocks are kept under the pseudo-device kHost, without statistics.
//
// The statistics are what callers asked for. A vendor allocator's rounding and
// caching are invisible here, so reserved_bytes is not claimed.
#ifndef OMNIRT_PLUGIN_COMMON_ALLOCATION_TRACKER_H_
#define OMNIRT_PLUGIN_COMMON_ALLOCATION_TRACKER_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::plugin_common {

class AllocationTracker {
 public:
  struct Block {
    int32_t device;
    uintptr_t base;
    size_t size;
  };

  static constexpr int32_t kHost = -1;
  static constexpr uint32_t kKnownStats = OMNIRT_STAT_ALLOCATED_BYTES | OMNIRT_STAT_PEAK_BYTES |
                                          OMNIRT_STAT_ALLOC_COUNT | OMNIRT_STAT_FREE_COUNT;

  void add(int32_t device, void* ptr, size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_[reinterpret_cast<uintptr_t>(ptr)] =
        Block{device, reinterpret_cast<uintptr_t>(ptr), size};
    if (device == kHost) return;
    Counters& c = counters(device);
    c.allocated += size;
    if (c.allocated > c.peak) c.peak = c.allocated;
    ++c.allocs;
  }

  // Removes the block starting at `ptr` on `device` and returns it; nullopt
  // when there is none (a foreign pointer, or a second free).
  std::optional<Block> take(int32_t device, void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == blocks_.end() || it->second.device != device) return std::nullopt;
    Block block = it->second;
    blocks_.erase(it);
    if (device == kHost) return block;
    Counters& c = counters(device);
    c.allocated -= block.size;
    ++c.frees;
    return block;
  }

  // As take(), for a free: throws INVALID_ARGUMENT naming the pointer when
  // there is no such block. `backend` and `call` prefix the message.
  Block take_for_free(int32_t device, void* ptr, const char* backend, const char* call) {
    if (std::optional<Block> block = take(device, ptr)) return *block;
    char address[32];
    std::snprintf(address, sizeof address, "%p", ptr);
    const std::string what = device == kHost ? std::string("pinned host memory")
                                             : "memory of device " + std::to_string(device);
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string(backend) + ": " + call + ": " +
                                                     address + " is not live " + what +
                                                     " from this backend (freed twice?)");
  }

  // Undoes take() when the vendor refused to free the block.
  void restore(const Block& block) {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_[block.base] = block;
    if (block.device == kHost) return;
    Counters& c = counters(block.device);
    c.allocated += block.size;
    if (c.frees > 0) --c.frees;
  }

  // The block that contains `ptr`, if this instance allocated it.
  std::optional<Block> find(const void* ptr) const {
    const auto address = reinterpret_cast<uintptr_t>(ptr);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = blocks_.upper_bound(address);
    if (it == blocks_.begin()) return std::nullopt;
    --it;
    const Block& block = it->second;
    if (address >= block.base + block.size) return std::nullopt;
    return block;
  }

  // Every live block, forgotten: for a backend that is being destroyed.
  std::vector<Block> take_all() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Block> blocks;
    blocks.reserve(blocks_.size());
    for (const auto& entry : blocks_) blocks.push_back(entry.second);
    blocks_.clear();
    return blocks;
  }

  void stats(int32_t device, omnirt_memory_stats& out) const {
    std::lock_guard<std::mutex> lock(mutex_);
    Counters c = device < static_cast<int32_t>(counters_.size()) ? counters_[device] : Counters{};
    out.known = kKnownStats;
    out.allocated_bytes = c.allocated;
    out.peak_bytes = c.peak;
    out.alloc_count = c.allocs;
    out.free_count = c.frees;
  }

  // peak := current, counts := 0.
  void reset(int32_t device) {
    std::lock_guard<std::mutex> lock(mutex_);
    Counters& c = counters(device);
    c.peak = c.allocated;
    c.allocs = 0;
    c.frees = 0;
  }

 private:
  struct Counters {
    uint64_t allocated = 0;
    uint64_t peak = 0;
    uint64_t allocs = 0;
    uint64_t frees = 0;
  };

  Counters& counters(int32_t device) {  // requires mutex_
    if (device >= static_cast<int32_t>(counters_.size())) counters_.resize(device + 1);
    return counters_[device];
  }

  mutable std::mutex mutex_;
  std::map<uintptr_t, Block> blocks_;
  std::vector<Counters> counters_;
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_ALLOCATION_TRACKER_H_
