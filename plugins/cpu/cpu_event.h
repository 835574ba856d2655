// A cpu event: a marker recorded on a stream, completed and timestamped when
// the stream's worker reaches it.
#ifndef OMNIRT_PLUGINS_CPU_CPU_EVENT_H_
#define OMNIRT_PLUGINS_CPU_CPU_EVENT_H_

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace omnirt::cpu {

// One record of an event. Shared by the event and the stream work that
// completes it, so destroying the event never strands a waiting stream.
class CpuEventMarker {
 public:
  using Clock = std::chrono::steady_clock;

  // Stamps the completion time and wakes the waiters. Called by the worker.
  void complete() noexcept;
  bool done() const;
  void wait() const;
  // The completion time; only meaningful once done().
  Clock::time_point completed_at() const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable completed_;
  bool done_ = false;
  Clock::time_point completed_at_;
};

class CpuEvent {
 public:
  // Starts a new record: queries, waits and timing refer to the latest one.
  std::shared_ptr<CpuEventMarker> record();
  // The latest record, or nullptr when the event was never recorded.
  std::shared_ptr<CpuEventMarker> latest() const;

  // True when the latest record has completed, or there is none.
  bool query() const;
  // Blocks until the latest record (as of this call) completes.
  void synchronize() const;

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<CpuEventMarker> latest_;
};

// Milliseconds from `start`'s completion to `end`'s. Throws INVALID_ARGUMENT
// when either was never recorded, NOT_READY when either has not completed.
float elapsed_milliseconds(const CpuEvent& start, const CpuEvent& end);

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_CPU_EVENT_H_
