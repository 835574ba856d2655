// Latency statistics of the timed iterations.
#pragma once

#include <vector>

namespace omnirt::run {

struct Latency {
  double median_ms = 0, p90_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0;
};

/// Nearest-rank percentiles over `samples_ms` (all zero when empty).
Latency summarize(std::vector<double> samples_ms);

}  // namespace omnirt::run
