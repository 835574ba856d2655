#include "memory_ledger.h"

namespace omnirt::cpu {

void MemoryLedger::release() noexcept {
  if (references_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

void MemoryLedger::add(uint64_t requested, uint64_t held) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  allocated_bytes_ += requested;
  reserved_bytes_ += held;
  if (allocated_bytes_ > peak_bytes_) peak_bytes_ = allocated_bytes_;
  ++alloc_count_;
}

void MemoryLedger::remove(uint64_t requested, uint64_t held) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  allocated_bytes_ -= requested;
  reserved_bytes_ -= held;
  ++free_count_;
}

void MemoryLedger::stats(omnirt_memory_stats& out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  out.known = OMNIRT_STAT_ALLOCATED_BYTES | OMNIRT_STAT_PEAK_BYTES | OMNIRT_STAT_RESERVED_BYTES |
              OMNIRT_STAT_ALLOC_COUNT | OMNIRT_STAT_FREE_COUNT;
  out.allocated_bytes = allocated_bytes_;
  out.peak_bytes = peak_bytes_;
  out.reserved_bytes = reserved_bytes_;
  out.alloc_count = alloc_count_;
  out.free_count = free_count_;
}

void MemoryLedger::reset() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  peak_bytes_ = allocated_bytes_;
  alloc_count_ = 0;
  free_count_ = 0;
}

omnirt_cpu_engine_ledger MemoryLedger::for_engine() noexcept {
  // What libtorch allocates is counted as requested: its allocator's own
  // rounding is not known here.
  return omnirt_cpu_engine_ledger{
      this,
      [](void* ledger, size_t bytes, int32_t allocated) {
        auto* self = static_cast<MemoryLedger*>(ledger);
        allocated != 0 ? self->add(bytes, bytes) : self->remove(bytes, bytes);
      },
      [](void* ledger) { static_cast<MemoryLedger*>(ledger)->retain(); },
      [](void* ledger) { static_cast<MemoryLedger*>(ledger)->release(); }};
}

}  // namespace omnirt::cpu
