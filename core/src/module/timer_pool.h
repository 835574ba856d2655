// The completion timers of one module's reported runs (omnirt_module_run with
// a report), kept between runs so that a run does not make and destroy its
// events each time. Runs may be concurrent: each takes a timer of its own.
// Owned by the module, which goes before its host, as the events must.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "omnirt/cpp/host.hpp"

namespace omnirt::wrap {

class TimerPool {
 public:
  /// An idle timer, else a new one for `device` of `backend` (fails as
  /// CompletionTimer::init does).
  omnirt_status take(omnirt_backend* backend, int32_t device,
                     std::unique_ptr<CompletionTimer>* out);
  /// Keeps `timer` for a later run.
  void give_back(std::unique_ptr<CompletionTimer> timer);

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<CompletionTimer>> idle_;
};

}  // namespace omnirt::wrap
