// A mutex biased toward the first thread that takes it: that thread locks and
// unlocks with plain loads and stores, no atomic read-modify-write, until a
// second thread wants the lock. The second thread revokes the bias once, and
// from then on every thread goes through a std::mutex.
//
// Why: an uncontended std::mutex costs two locked instructions per lock and
// unlock once the process has a second thread (glibc skips them while it has
// one; a CUDA process always has several). On the H100 hosts that is ~13 ns
// each, ~52 ns of an alloc+free pair served from the caching allocator's
// cache. The common case is one thread driving a device: that thread pays
// none of it.
//
// The owner's fast path is the asymmetric half of a Dekker handshake: it
// announces itself (inside_ = true) and then reads revoked_, with no hardware
// fence between the two. The revoking thread writes revoked_ and then makes
// every running thread of the process execute a full fence (membarrier
// MEMBARRIER_CMD_PRIVATE_EXPEDITED, Linux 4.14+) before it reads inside_, so
// at least one of the two sees the other's store: either the owner sees the
// revocation and takes the mutex, or the revoker sees the owner inside and
// waits for it to leave. This is liburcu's membarrier flavour and Folly's
// asymmetricHeavyBarrier. Where the kernel (or a seccomp filter) refuses
// membarrier, no thread is ever biased and this is a std::mutex.
//
// A revocation waits for the owner to leave its critical section, which may
// hold a cudaMalloc or a device synchronize; it happens once per mutex.
#ifndef OMNIRT_PLUGINS_CUDA_BIASED_MUTEX_H_
#define OMNIRT_PLUGINS_CUDA_BIASED_MUTEX_H_

#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

// Nested: a preprocessor without __has_builtin cannot parse a call to it.
#if defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer)
#define OMNIRT_CUDA_HAVE_THREAD_POINTER 1
#endif
#endif

namespace omnirt::cuda {

class BiasedMutex {
 public:
  BiasedMutex() = default;
  BiasedMutex(const BiasedMutex&) = delete;
  BiasedMutex& operator=(const BiasedMutex&) = delete;

  /// Blocks until the calling thread holds the mutex. Not recursive, as
  /// std::mutex is not.
  void lock() {
    if (owner_.load(std::memory_order_relaxed) == this_thread() &&
        !revoked_.load(std::memory_order_relaxed)) {
      inside_.store(true, std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the revoker's membarrier fences us
      if (!revoked_.load(std::memory_order_relaxed)) {
        held_by_bias_ = true;
        return;
      }
      inside_.store(false, std::memory_order_release);
    }
    mutex_.lock();
    settle_bias();
    held_by_bias_ = false;  // only now: a revoked owner may still be in its critical section
  }

  /// Releases the mutex; the caller must hold it.
  void unlock() {
    if (held_by_bias_) {
      inside_.store(false, std::memory_order_release);
    } else {
      mutex_.unlock();
    }
  }

  /// Does the calling thread own the bias (lock without read-modify-write)?
  bool biased_to_caller() const {
    return owner_.load(std::memory_order_relaxed) == this_thread() &&
           !revoked_.load(std::memory_order_relaxed);
  }

  /// Can this process bias a mutex at all (is membarrier available)?
  static bool bias_supported() { return process_can_fence_others(); }

 private:
  // Called holding mutex_: the first thread to get here takes the bias, any
  // other revokes it, for good. (Re-biasing would let a stale fast-path
  // attempt of the old owner clear the new owner's inside_.)
  void settle_bias() {
    if (revoked_.load(std::memory_order_relaxed)) return;
    if (!owner_claimed_) {
      owner_claimed_ = true;
      if (process_can_fence_others()) {
        owner_.store(this_thread(), std::memory_order_relaxed);
      } else {
        revoked_.store(true, std::memory_order_relaxed);
      }
      return;
    }
    revoked_.store(true, std::memory_order_relaxed);
    fence_every_thread();
    // The owner may be inside; its release store on leaving publishes its writes to us.
    for (int spins = 0; inside_.load(std::memory_order_acquire); ++spins) {
      if (spins < 64) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
  }

  // A value unique to each live thread: the thread pointer (one register
  // read) where the compiler offers it, else pthread_self (a libc call).
  static uintptr_t this_thread() {
#ifdef OMNIRT_CUDA_HAVE_THREAD_POINTER
    return reinterpret_cast<uintptr_t>(__builtin_thread_pointer());
#else
    return uintptr_t(pthread_self());
#endif
  }

  static long membarrier(int command) { return syscall(__NR_membarrier, command, 0, 0); }

  // Registers the process for expedited private membarriers, once. False
  // where the kernel lacks them or a seccomp filter forbids the call.
  static bool process_can_fence_others() {
    static const bool can = [] {
      const long supported = membarrier(MEMBARRIER_CMD_QUERY);
      return supported >= 0 && (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
             membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
    }();
    return can;
  }

  // Registered, the command can still fail for want of kernel memory
  // (ENOMEM). Nothing else makes the revocation safe, so it is retried.
  static void fence_every_thread() {
    while (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  std::mutex mutex_;
  std::atomic<uintptr_t> owner_{0};         // the biased thread; written once, under mutex_
  std::atomic<bool> revoked_{false};        // written under mutex_
  std::atomic<bool> inside_{false};         // written by the owner only
  bool owner_claimed_ = false;              // under mutex_
  bool held_by_bias_ = false;               // written by the holder only
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_BIASED_MUTEX_H_
