#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace omnirt::run {
namespace {

constexpr double kQuietSeconds = 2.0;  // a non-terminal sees nothing before this
constexpr double kTtyInterval = 0.25;  // redraw period on a terminal
constexpr double kLogInterval = 5.0;   // line period elsewhere

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

Progress::Progress(size_t total) : total_(total), tty_(isatty(STDERR_FILENO) == 1) {}

void Progress::update(size_t done, double last_ms) {
  const auto now = Clock::now();
  const double since_last = seconds(now - last_);
  if (tty_ ? since_last < kTtyInterval
           : (seconds(now - start_) < kQuietSeconds || since_last < kLogInterval)) {
    return;
  }
  last_ = now;
  std::fprintf(stderr, "%srun %zu/%zu, last %.2f ms, %.0f s elapsed%s", tty_ ? "\r\033[K" : "",
               done, total_, last_ms, seconds(now - start_), tty_ ? "" : "\n");
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (tty_ && drawn_) std::fputs("\r\033[K", stderr);
}

}  // namespace omnirt::run
