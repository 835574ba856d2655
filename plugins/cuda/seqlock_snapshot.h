// A value written by one thread at a time and read by any thread without a
// lock (a seqlock): the caching allocator publishes its statistics through
// one, so that reading memory stats from a monitoring thread neither waits
// for allocations nor takes their lock (and so never revokes its bias).
//
// The writer costs plain stores only. A reader retries while a write is in
// progress, so it always gets one consistent value. The fences follow
// Boehm, "Can seqlocks get along with programming language memory models?".
#ifndef OMNIRT_PLUGINS_CUDA_SEQLOCK_SNAPSHOT_H_
#define OMNIRT_PLUGINS_CUDA_SEQLOCK_SNAPSHOT_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <type_traits>
#include <utility>

namespace omnirt::cuda {

/// `T`: a trivially copyable struct made of 64-bit words.
template <class T>
class SeqlockSnapshot {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % sizeof(uint64_t) == 0);
  static constexpr size_t kWords = sizeof(T) / sizeof(uint64_t);

 public:
  /// Publishes `value`. Writers must be serialized (by the caller's lock).
  void write(const T& value) {
    const uint64_t sequence = sequence_.load(std::memory_order_relaxed);
    sequence_.store(sequence + 1, std::memory_order_relaxed);  // odd: a write is in progress
    std::atomic_thread_fence(std::memory_order_release);
    store_words(reinterpret_cast<const unsigned char*>(&value), std::make_index_sequence<kWords>());
    sequence_.store(sequence + 2, std::memory_order_release);
  }

  /// The last value published (T{} before the first).
  T read() const {
    uint64_t words[kWords];
    for (;;) {
      const uint64_t before = sequence_.load(std::memory_order_acquire);
      for (size_t i = 0; i < kWords; ++i) words[i] = words_[i].load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if ((before & 1) == 0 && sequence_.load(std::memory_order_relaxed) == before) break;
      std::this_thread::yield();  // the writer may have been preempted mid-write
    }
    T value;
    std::memcpy(&value, words, sizeof(T));
    return value;
  }

 private:
  // Unrolled, and word by word: a wider load of `value`, just written field
  // by field, would stall on store forwarding.
  template <size_t... I>
  void store_words(const unsigned char* bytes, std::index_sequence<I...>) {
    (words_[I].store(word_at(bytes, I), std::memory_order_relaxed), ...);
  }
  static uint64_t word_at(const unsigned char* bytes, size_t i) {
    uint64_t word;
    std::memcpy(&word, bytes + i * sizeof word, sizeof word);
    return word;
  }

  std::atomic<uint64_t> sequence_{0};
  std::atomic<uint64_t> words_[kWords] = {};
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_SEQLOCK_SNAPSHOT_H_
