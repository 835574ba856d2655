#include "latency.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace omnirt::run {
namespace {

double percentile(const std::vector<double>& sorted, double p) {
  const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::max<size_t>(rank, 1) - 1];
}

}  // namespace

Latency summarize(std::vector<double> samples_ms) {
  Latency l;
  if (samples_ms.empty()) return l;
  std::sort(samples_ms.begin(), samples_ms.end());
  l.median_ms = percentile(samples_ms, 50);
  l.p90_ms = percentile(samples_ms, 90);
  l.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) /
              static_cast<double>(samples_ms.size());
  l.min_ms = samples_ms.front();
  l.max_ms = samples_ms.back();
  return l;
}

}  // namespace omnirt::run
