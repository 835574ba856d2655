// Host memory for the cpu backend: aligned blocks, every live block tracked,
// counted in the backend's memory ledger (memory_ledger.h).
#ifndef OMNIRT_PLUGINS_CPU_CPU_ALLOCATOR_H_
#define OMNIRT_PLUGINS_CPU_CPU_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "memory_ledger.h"
#include "omnirt/types.h"

namespace omnirt::cpu {

// Which API handed a block out, so it is freed by the matching call.
enum class MemoryKind { kDevice, kPinnedHost };

class CpuAllocator {
 public:
  // The ABI promises device memory aligned to at least 256 bytes.
  static constexpr size_t kAlignment = 256;

  // `capacity_bytes`: the most one block may have (the machine's memory);
  // larger requests are OUT_OF_MEMORY without asking the system.
  explicit CpuAllocator(uint64_t capacity_bytes);
  // Releases the blocks callers still hold: the backend owns its memory.
  ~CpuAllocator();
  CpuAllocator(const CpuAllocator&) = delete;
  CpuAllocator& operator=(const CpuAllocator&) = delete;

  // nullptr for size 0; throws OUT_OF_MEMORY.
  void* allocate(size_t size, MemoryKind kind);
  // Frees a live block now. nullptr is a no-op. Throws INVALID_ARGUMENT for a
  // pointer that is not a live block of `kind` (double free included).
  void release(void* ptr, MemoryKind kind);

  // Stream-ordered free in two steps: begin_release validates now (so a second
  // free fails at once) and takes the block out of callers' hands;
  // finish_release gives the memory back when the stream reaches the free.
  void begin_release(void* ptr, MemoryKind kind);
  void finish_release(void* ptr) noexcept;

  // The backend's statistics: this allocator's blocks, and what else is
  // counted into its ledger (the engine's allocations for modules).
  void stats(omnirt_memory_stats& out) const { ledger_->stats(out); }
  // peak := current allocation, counts := 0.
  void reset_stats() { ledger_->reset(); }
  MemoryLedger& ledger() { return *ledger_; }

 private:
  struct Block {
    size_t requested;   // bytes the caller asked for
    size_t held;        // bytes the C library really holds for it
    MemoryKind kind;
    bool release_pending;  // freed on a stream that has not reached the free yet
  };

  Block& live_block(void* ptr, MemoryKind kind);  // requires mutex_
  void forget(std::unordered_map<void*, Block>::iterator it);  // requires mutex_

  const uint64_t capacity_bytes_;
  MemoryLedger* const ledger_;
  mutable std::mutex mutex_;
  std::unordered_map<void*, Block> blocks_;
};

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_CPU_ALLOCATOR_H_
