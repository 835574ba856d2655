// An open-addressing map from an address to a caller-owned value: the caching
// allocator's one lookup per free. std::unordered_map costs a division and a
// node hop per operation, which is most of an alloc+free pair; this is a
// multiply, a shift and usually one probe. Linear probing over a power-of-two
// array kept at most half full; erase shifts the probe chain back, so there
// are no tombstones and lookups stay short however long the process runs.
// Not thread-safe: the allocator calls it under its lock.
#ifndef OMNIRT_PLUGINS_CUDA_POINTER_TABLE_H_
#define OMNIRT_PLUGINS_CUDA_POINTER_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace omnirt::cuda {

template <class Value>
class PointerTable {
 public:
  PointerTable() : slots_(kInitialCapacity), shift_(64 - kInitialBits) {}

  /// The value stored for `key`, or nullptr.
  Value* find(const void* key) const {
    for (size_t i = home(key);; i = next(i)) {
      if (slots_[i].key == key) return slots_[i].value;
      if (slots_[i].key == nullptr) return nullptr;
    }
  }

  /// Stores `value` for `key`, which must be non-null and absent.
  void insert(const void* key, Value* value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    place(key, value);
    ++size_;
  }

  /// Forgets `key`; absent keys are ignored.
  void erase(const void* key) {
    size_t hole = home(key);
    while (slots_[hole].key != key) {
      if (slots_[hole].key == nullptr) return;
      hole = next(hole);
    }
    // Move back each later entry of the chain that may live in the hole: one
    // whose home is not cyclically inside (hole, j].
    for (size_t j = next(hole); slots_[j].key != nullptr; j = next(j)) {
      const size_t h = home(slots_[j].key);
      const bool stays = hole < j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (!stays) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = Slot{};
    --size_;
  }

  /// Calls `f(key, value)` for every entry; `f` must not modify the table.
  template <class F>
  void for_each(F&& f) const {
    for (const Slot& slot : slots_) {
      if (slot.key != nullptr) f(slot.key, slot.value);
    }
  }

  size_t size() const { return size_; }

 private:
  static constexpr int kInitialBits = 6;
  static constexpr size_t kInitialCapacity = size_t{1} << kInitialBits;

  struct Slot {
    const void* key = nullptr;
    Value* value = nullptr;
  };

  // Fibonacci hashing: the product's top bits mix every bit of the address,
  // so aligned allocations (low bits zero) still spread over the table.
  size_t home(const void* key) const {
    return size_t((uint64_t(uintptr_t(key)) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  size_t next(size_t i) const { return (i + 1) & (slots_.size() - 1); }

  void place(const void* key, Value* value) {
    size_t i = home(key);
    while (slots_[i].key != nullptr) i = next(i);
    slots_[i] = Slot{key, value};
  }

  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    --shift_;
    for (const Slot& slot : old) {
      if (slot.key != nullptr) place(slot.key, slot.value);
    }
  }

  std::vector<Slot> slots_;
  int shift_;  // 64 - log2(capacity)
  size_t size_ = 0;
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_POINTER_TABLE_H_
