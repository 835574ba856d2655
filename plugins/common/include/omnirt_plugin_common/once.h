// std::call_once with a lock-free fast path, for lazy set-up that hot calls
// pass through (the runtime, a device's allocator, the kernels). libstdc++'s
// call_once writes two of its own thread-locals around every call, and from a
// dlopened plugin each access is a __tls_get_addr call: four of them cost
// more than an alloc+free from a cache. After the first run this is one
// acquire load.
#ifndef OMNIRT_PLUGIN_COMMON_ONCE_H_
#define OMNIRT_PLUGIN_COMMON_ONCE_H_

#include <atomic>
#include <mutex>

namespace omnirt::plugin_common {

class Once {
 public:
  /// Runs `f` unless a call has completed: concurrent callers wait for the
  /// one that runs it. If `f` throws, a later call runs it again.
  template <class F>
  void operator()(F&& f) {
    if (!done_.load(std::memory_order_acquire)) run(f);
  }

  /// Has a call completed (without running anything)?
  bool done() const { return done_.load(std::memory_order_acquire); }

 private:
  // Out of line and cold: inlined, its set-up makes hot callers spill registers.
  template <class F>
  [[gnu::noinline, gnu::cold]] void run(F& f) {
    std::call_once(flag_, [&] {
      f();
      done_.store(true, std::memory_order_release);
    });
  }

  std::once_flag flag_;
  std::atomic<bool> done_{false};
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_ONCE_H_
