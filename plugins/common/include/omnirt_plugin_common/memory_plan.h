// Argument checks and device choice for copies and sets, shared by backends
// that track their allocations in an AllocationTracker.
//
// Vendor runtimes run a copy in the context of one device; the plan picks the
// device that owns the device-side pointer (the source, for a copy between two
// devices). Pointers this backend did not allocate (memory of a framework
// sharing the device) run on device 0 and are left to the vendor to validate.
#ifndef OMNIRT_PLUGIN_COMMON_MEMORY_PLAN_H_
#define OMNIRT_PLUGIN_COMMON_MEMORY_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/allocation_tracker.h"

namespace omnirt::plugin_common {

struct MemoryPlan {
  int32_t device;       // whose context runs the operation
  size_t dst_capacity;  // bytes from dst to the end of its block (size when unknown)
  int32_t peer = -1;    // for a copy between two devices, the destination's device
};

class MemoryPlanner {
 public:
  MemoryPlanner(const AllocationTracker& blocks, std::string backend)
      : blocks_(blocks), backend_(std::move(backend)) {}

  // Throws INVALID_ARGUMENT for an unknown kind, a NULL pointer or a copy that
  // runs past a known block.
  MemoryPlan copy(void* dst, const void* src, size_t size, int32_t kind) const {
    if (kind < OMNIRT_MEMCPY_HOST_TO_HOST || kind > OMNIRT_MEMCPY_DEVICE_TO_DEVICE) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT,
           "memcpy kind " + std::to_string(kind) + " is not an omnirt_memcpy_kind");
    }
    if (size > 0 && (dst == nullptr || src == nullptr)) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT,
           "memcpy of " + std::to_string(size) + " bytes with a NULL " + (dst ? "src" : "dst"));
    }
    const std::optional<AllocationTracker::Block> to = device_block(dst);
    const std::optional<AllocationTracker::Block> from = device_block(src);
    check_fits(to, dst, size, "dst");
    check_fits(from, src, size, "src");
    if (to && from && to->device != from->device) {
      return {from->device, capacity(to, dst, size), to->device};
    }
    const int32_t device = to ? to->device : from ? from->device : 0;
    return {device, capacity(to, dst, size)};
  }

  // Throws INVALID_ARGUMENT for a NULL pointer or a set past a known block.
  MemoryPlan set(void* ptr, size_t size) const {
    if (size > 0 && ptr == nullptr) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT,
           "memset of " + std::to_string(size) + " bytes with a NULL ptr");
    }
    const std::optional<AllocationTracker::Block> block = device_block(ptr);
    check_fits(block, ptr, size, "ptr");
    return {block ? block->device : 0, capacity(block, ptr, size)};
  }

 private:
  std::optional<AllocationTracker::Block> device_block(const void* ptr) const {
    std::optional<AllocationTracker::Block> block = blocks_.find(ptr);
    if (block && block->device == AllocationTracker::kHost) return std::nullopt;
    return block;
  }

  static size_t capacity(const std::optional<AllocationTracker::Block>& block, const void* ptr,
                         size_t fallback) {
    if (!block) return fallback;
    return block->base + block->size - reinterpret_cast<uintptr_t>(ptr);
  }

  void check_fits(const std::optional<AllocationTracker::Block>& block, const void* ptr,
                  size_t size, const char* which) const {
    const size_t room = capacity(block, ptr, size);
    if (size > room) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string(which) + " has " + std::to_string(room) +
                                               " bytes left in its allocation on device " +
                                               std::to_string(block->device) + ", " +
                                               std::to_string(size) + " requested");
    }
  }

  [[noreturn]] void fail(omnirt_status status, const std::string& message) const {
    plugin::fail(status, backend_ + ": " + message);
  }

  const AllocationTracker& blocks_;
  const std::string backend_;
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_MEMORY_PLAN_H_
