#include "counting_allocator.h"

#include <c10/core/CPUAllocator.h>

#include <array>
#include <functional>
#include <mutex>
#include <unordered_map>

namespace omnirt::cpu_engine {
namespace {

thread_local const omnirt_cpu_engine_ledger* t_ledger = nullptr;

// A counted block: what frees it underneath, and where its size was counted.
struct Counted {
  void* context;
  c10::DeleterFnPtr deleter;
  size_t size;
  omnirt_cpu_engine_ledger ledger;
};

// Counted blocks by data pointer, in shards so that concurrent runs rarely
// share a lock. The block's DataPtr context is its data pointer, as
// Allocator::raw_allocate requires of every allocator.
class Blocks {
 public:
  void add(void* data, const Counted& block) {
    Shard& s = shard(data);
    std::lock_guard<std::mutex> lock(s.mutex);
    s.blocks.emplace(data, block);
  }
  // Removes and returns the block at `data`; false when it is not counted.
  bool take(void* data, Counted* block) {
    Shard& s = shard(data);
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.blocks.find(data);
    if (it == s.blocks.end()) return false;
    *block = it->second;
    s.blocks.erase(it);
    return true;
  }

 private:
  struct Shard {
    std::mutex mutex;
    std::unordered_map<void*, Counted> blocks;
  };
  Shard& shard(void* data) { return shards_[(std::hash<void*>()(data) >> 6) % shards_.size()]; }
  std::array<Shard, 16> shards_;
};

Blocks& blocks() {
  static Blocks* const all = new Blocks;  // outlives every block: never destroyed
  return *all;
}

void free_counted(Counted& block) {
  block.deleter(block.context);
  block.ledger.count(block.ledger.context, block.size, 0);
  block.ledger.release(block.ledger.context);
}

class CountingAllocator final : public c10::Allocator {
 public:
  explicit CountingAllocator(c10::Allocator* underneath) : underneath_(underneath) {}

  c10::DataPtr allocate(size_t n) const override {
    c10::DataPtr data = underneath_->allocate(n);
    const omnirt_cpu_engine_ledger* ledger = t_ledger;
    if (ledger == nullptr || data.get() == nullptr) return data;
    const c10::Device device = data.device();
    void* pointer = data.get();
    const c10::DeleterFnPtr deleter = data.get_deleter();
    // Counted from here on: if recording fails, the block is still freed right.
    Counted block{data.release_context(), deleter, n, *ledger};
    try {
      blocks().add(pointer, block);
    } catch (...) {
      deleter(block.context);
      throw;
    }
    ledger->retain(ledger->context);
    ledger->count(ledger->context, n, 1);
    return c10::DataPtr(pointer, pointer, &free_block, device);
  }

  // raw_allocate/raw_deallocate go through this: counted blocks are found by
  // their pointer, the others go to the allocator underneath.
  c10::DeleterFnPtr raw_deleter() const override {
    return underneath_->raw_deleter() != nullptr ? &raw_free : nullptr;
  }

  static CountingAllocator* installed;

 private:
  static void free_block(void* data) {
    Counted block;
    if (blocks().take(data, &block)) free_counted(block);
  }
  static void raw_free(void* data) {
    Counted block;
    if (blocks().take(data, &block)) {
      free_counted(block);
    } else {
      installed->underneath_->raw_deleter()(data);
    }
  }

  c10::Allocator* const underneath_;
};

CountingAllocator* CountingAllocator::installed = nullptr;

// In front of libtorch's CPU allocator, once per process. Priority 0 (the
// default allocator's): an allocator someone installed with a higher
// priority keeps its place, and the figures then say the modules' memory is
// not counted.
void install() {
  static std::once_flag once;
  std::call_once(once, [] {
    c10::Allocator* current = c10::GetCPUAllocator();
    CountingAllocator::installed = new CountingAllocator(current);  // never freed: blocks may outlive everything
    c10::SetCPUAllocator(CountingAllocator::installed, /*priority=*/0);
  });
}

}  // namespace

const omnirt_cpu_engine_ledger* begin_scope(const omnirt_cpu_engine_ledger* ledger) {
  if (ledger != nullptr) install();
  const omnirt_cpu_engine_ledger* previous = t_ledger;
  t_ledger = ledger;
  return previous;
}

void end_scope(const omnirt_cpu_engine_ledger* previous) noexcept { t_ledger = previous; }

bool memory_counted() noexcept {
  return CountingAllocator::installed != nullptr &&
         c10::GetCPUAllocator() == CountingAllocator::installed;
}

}  // namespace omnirt::cpu_engine
