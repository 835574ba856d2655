// A caching allocator for device memory, written against a small DeviceMemory
// interface so that its bookkeeping is tested on the CPU (tests/cuda) and
// driven by CUDA in the plugin (cuda_memory.cpp).
//
// Blocks are rounded up to size classes (four per power of two, at least
// 512 bytes) and cached on free instead of returned to the device. A cached
// block is reused at once by the stream that freed it (stream order makes
// that safe), and by another stream only after an event recorded on the
// freeing stream shows its work done; the event is recorded lazily, when
// another stream first asks, so the common same-stream path costs no CUDA
// call. When the device is full the cache is released and the allocation
// retried. Blocks are never split, so reserved_bytes exceeds allocated_bytes
// by the rounding (under 25%) plus what is cached.
//
// The hot path is an alloc+free pair served from the cache: one lock per
// call, a size-class index computed from the size (no lookup), a LIFO bin,
// and one PointerTable probe on free. Every block, live or cached, stays in
// the table from its device allocation to its release, so a cache hit
// touches no map at all. The lock is a BiasedMutex: while one thread drives
// the device it takes the lock with plain stores. Statistics are published
// through a seqlock, so reading them takes no lock.
#ifndef OMNIRT_PLUGINS_CUDA_CACHING_ALLOCATOR_H_
#define OMNIRT_PLUGINS_CUDA_CACHING_ALLOCATOR_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "biased_mutex.h"
#include "pointer_table.h"
#include "seqlock_snapshot.h"

namespace omnirt::cuda {

/// What the caching allocator needs from one device. Called with the
/// allocator's lock held and the device current.
class DeviceMemory {
 public:
  using Stream = void*;  ///< Opaque stream handle; nullptr is the default stream.
  using Event = void*;   ///< Opaque event handle.
  virtual ~DeviceMemory() = default;
  /// `bytes` of fresh device memory, or nullptr when the device is full.
  virtual void* allocate(size_t bytes) = 0;
  /// Returns memory that no stream uses any more.
  virtual void deallocate(void* ptr) = 0;
  /// An event that completes once the work enqueued on `stream` so far is done.
  virtual Event record(Stream stream) = 0;
  /// Has `event` completed?
  virtual bool done(Event event) = 0;
  /// Gives an event from record() back.
  virtual void release(Event event) = 0;
  /// Waits until every stream of the device is idle.
  virtual void synchronize() = 0;
};

/// Byte and count statistics of a CachingAllocator.
struct CachingStats {
  uint64_t allocated_bytes = 0;  ///< live blocks, as requested
  uint64_t peak_bytes = 0;       ///< highest allocated_bytes since reset
  uint64_t reserved_bytes = 0;   ///< held from the device: live and cached, rounded
  uint64_t cached_bytes = 0;     ///< held from the device and free
  uint64_t alloc_count = 0;      ///< allocations since reset
  uint64_t free_count = 0;       ///< frees since reset
  uint64_t device_allocs = 0;    ///< DeviceMemory::allocate calls since reset (cache misses)
  uint64_t device_frees = 0;     ///< DeviceMemory::deallocate calls since reset
};

class CachingAllocator {
 public:
  using Stream = DeviceMemory::Stream;

  explicit CachingAllocator(DeviceMemory& device) : device_(device) {}
  /// Returns every block, cached or still live, to the device.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /// `size` bytes usable by work on `stream`; nullptr for size 0. Throws
  /// omnirt::plugin::Error(OUT_OF_MEMORY) when the device stays full after
  /// the cache was released.
  void* allocate(size_t size, Stream stream);
  /// Caches `ptr`; it may be reused by later work on `stream` at once.
  /// nullptr is a no-op; an unknown pointer is INVALID_ARGUMENT.
  void free(void* ptr, Stream stream);
  /// `stream` was synchronized and destroyed: its cached blocks are idle.
  void stream_retired(Stream stream);
  /// Returns every cached block to the device; the bytes released.
  uint64_t release_cached();

  /// The statistics after the last completed call; takes no lock.
  CachingStats stats() const { return published_.read(); }
  /// Peak to current, counts to zero.
  void reset_stats();

  /// Does the calling thread take the lock without read-modify-write (it is
  /// the only thread that has used this allocator)? For tests and benchmarks.
  bool lock_biased_to_caller() const { return mutex_.biased_to_caller(); }

  /// The size class `size` is rounded up to.
  static size_t size_class(size_t size);

 private:
  struct Block {
    void* ptr = nullptr;
    size_t size = 0;       // size class: bytes held from the device
    size_t requested = 0;  // bytes asked for; 0 while cached
    uint32_t bin = 0;      // index of the size class
    Stream stream = nullptr;
    DeviceMemory::Event event = nullptr;  // recorded on `stream` when another stream asked
  };

  // Size classes up to the largest allocatable size (SIZE_MAX / 4): class 0
  // is 512 bytes, then four per power of two.
  static constexpr size_t kBins = 4 * 64;
  static uint32_t bin_of(size_t size);
  // The size class of `bin`: the inverse of bin_of on class sizes.
  static size_t bin_size(uint32_t bin);

  // The lock, held for one call; publishes the statistics before releasing
  // it, whether the call succeeded or threw.
  class Locked {
   public:
    explicit Locked(CachingAllocator& cache) : cache_(cache) { cache_.mutex_.lock(); }
    ~Locked() {
      cache_.published_.write(cache_.stats_);
      cache_.mutex_.unlock();
    }
    Locked(const Locked&) = delete;
    Locked& operator=(const Locked&) = delete;

   private:
    CachingAllocator& cache_;
  };

  // A cached block of `bin` that work on `stream` may use, or nullptr.
  Block* take_cached(uint32_t bin, Stream stream);
  Block* search_cached(std::vector<Block*>& blocks, Stream stream);
  Block* allocate_from_device(uint32_t bin, size_t rounded, size_t size);
  uint64_t release_cached_locked();

  DeviceMemory& device_;
  BiasedMutex mutex_;
  PointerTable<Block> blocks_;                     // every block held, by address (owned)
  std::array<std::vector<Block*>, kBins> cached_;  // free blocks by size class, newest last
  CachingStats stats_;                             // under mutex_
  SeqlockSnapshot<CachingStats> published_;        // stats_ as of the last call
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CACHING_ALLOCATOR_H_
