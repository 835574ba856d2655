// The cpu backend's memory statistics: what its allocator hands out and what
// the TorchScript engine allocates for its modules, counted together so that
// the peak is the peak of both. Reference-counted: blocks the engine counted
// may be freed (an output released late) after the backend instance is gone.
#ifndef OMNIRT_PLUGINS_CPU_MEMORY_LEDGER_H_
#define OMNIRT_PLUGINS_CPU_MEMORY_LEDGER_H_

#include <atomic>
#include <cstdint>
#include <mutex>

#include "engine/engine_api.h"

namespace omnirt::cpu {

class MemoryLedger {
 public:
  /// A ledger with one reference, the caller's.
  static MemoryLedger* create() { return new MemoryLedger; }
  void retain() noexcept { references_.fetch_add(1, std::memory_order_relaxed); }
  /// Deletes the ledger with its last reference.
  void release() noexcept;

  /// `requested` bytes handed out, `held` of them really set aside.
  void add(uint64_t requested, uint64_t held) noexcept;
  void remove(uint64_t requested, uint64_t held) noexcept;

  void stats(omnirt_memory_stats& out) const;
  /// peak := current allocation, counts := 0.
  void reset() noexcept;

  /// This ledger as the engine counts into it (engine_api.h).
  omnirt_cpu_engine_ledger for_engine() noexcept;

 private:
  MemoryLedger() = default;

  std::atomic<uint32_t> references_{1};
  mutable std::mutex mutex_;
  uint64_t allocated_bytes_ = 0;
  uint64_t reserved_bytes_ = 0;
  uint64_t peak_bytes_ = 0;
  uint64_t alloc_count_ = 0;
  uint64_t free_count_ = 0;
};

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_MEMORY_LEDGER_H_
