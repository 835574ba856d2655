// The progress line of long runs, on stderr: redrawn in place on a
// terminal, otherwise one line every few seconds once a run takes longer
// than a couple of seconds (so logs of short runs stay clean).
#pragma once

#include <chrono>
#include <cstddef>

namespace omnirt::run {

class Progress {
 public:
  explicit Progress(size_t total);
  /// Called after iteration `done` (1-based) finished in `last_ms`.
  void update(size_t done, double last_ms);
  /// Clears the line (terminal) before the results are printed.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  size_t total_;
  bool tty_;
  bool drawn_ = false;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = start_;
};

}  // namespace omnirt::run
