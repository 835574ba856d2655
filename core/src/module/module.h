// omnirt_module: a wrapped module, its timeline entry and its selected tier.
#pragma once

#include <memory>

#include "module/runner.h"
#include "module/timeline.h"
#include "module/timer_pool.h"
#include "omnirt/host.h"

struct omnirt_module {
  omnirt_backend* backend = nullptr;
  /// Where inputs must live: the backend's memory type on the wrapped device.
  DLDevice input_device{};
  omnirt::wrap::TimelineEntry timeline;
  std::unique_ptr<omnirt::wrap::Runner> runner;
  /// Timers of the runs given a report; their events go before the runner.
  omnirt::wrap::TimerPool timers;
};
