#include "cpu_allocator.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu {
namespace {

std::string describe(const void* ptr) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", ptr);
  return text;
}

const char* free_call(MemoryKind kind) {
  return kind == MemoryKind::kDevice ? "free_device/free_async" : "free_host";
}

}  // namespace

CpuAllocator::CpuAllocator(uint64_t capacity_bytes)
    : capacity_bytes_(capacity_bytes), ledger_(MemoryLedger::create()) {}

CpuAllocator::~CpuAllocator() {
  for (auto& [ptr, block] : blocks_) std::free(ptr);
  ledger_->release();
}

void* CpuAllocator::allocate(size_t size, MemoryKind kind) {
  if (size == 0) return nullptr;
  // Bounded by the machine's memory, so the rounding below cannot overflow.
  if (size > capacity_bytes_) {
    plugin::fail(OMNIRT_STATUS_OUT_OF_MEMORY,
                 "cpu: cannot allocate " + std::to_string(size) + " bytes: the machine has " +
                     std::to_string(capacity_bytes_) + " bytes of memory");
  }
  // aligned_alloc wants a multiple of the alignment.
  const size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  void* ptr = std::aligned_alloc(kAlignment, rounded);
  if (ptr == nullptr) {
    plugin::fail(OMNIRT_STATUS_OUT_OF_MEMORY,
                 "cpu: out of host memory allocating " + std::to_string(size) + " bytes");
  }
  // What the C library really set aside, rounding and slack included.
  const size_t held = malloc_usable_size(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    blocks_.emplace(ptr, Block{size, held, kind, false});
  } catch (...) {
    std::free(ptr);
    throw;
  }
  ledger_->add(size, held);
  return ptr;
}

CpuAllocator::Block& CpuAllocator::live_block(void* ptr, MemoryKind kind) {
  auto it = blocks_.find(ptr);
  if (it == blocks_.end()) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 "cpu: pointer " + describe(ptr) +
                     " is not a live allocation of this backend (already freed, or never "
                     "allocated here)");
  }
  Block& block = it->second;
  if (block.kind != kind) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 "cpu: pointer " + describe(ptr) + " must be freed with " +
                     free_call(block.kind));
  }
  if (block.release_pending) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 "cpu: pointer " + describe(ptr) + " is already being freed on a stream");
  }
  return block;
}

void CpuAllocator::forget(std::unordered_map<void*, Block>::iterator it) {
  ledger_->remove(it->second.requested, it->second.held);
  std::free(it->first);
  blocks_.erase(it);
}

void CpuAllocator::release(void* ptr, MemoryKind kind) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  live_block(ptr, kind);
  forget(blocks_.find(ptr));
}

void CpuAllocator::begin_release(void* ptr, MemoryKind kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  live_block(ptr, kind).release_pending = true;
}

void CpuAllocator::finish_release(void* ptr) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(ptr);
  if (it != blocks_.end()) forget(it);
}


}  // namespace omnirt::cpu
