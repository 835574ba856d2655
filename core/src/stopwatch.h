// Wall-clock timing of load stages.
#ifndef OMNIRT_CORE_STOPWATCH_H_
#define OMNIRT_CORE_STOPWATCH_H_

#include <chrono>
#include <cstdint>

namespace omnirt {

/// Measures the time since it was made.
class Stopwatch {
 public:
  Stopwatch() noexcept : start_(std::chrono::steady_clock::now()) {}
  uint64_t elapsed_ns() const noexcept {
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace omnirt

#endif  // OMNIRT_CORE_STOPWATCH_H_
