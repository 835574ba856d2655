#include "cpu_event.h"

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu {

void CpuEventMarker::complete() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    completed_at_ = Clock::now();
    done_ = true;
  }
  completed_.notify_all();
}

bool CpuEventMarker::done() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

void CpuEventMarker::wait() const {
  std::unique_lock<std::mutex> lock(mutex_);
  completed_.wait(lock, [&] { return done_; });
}

CpuEventMarker::Clock::time_point CpuEventMarker::completed_at() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_at_;
}

std::shared_ptr<CpuEventMarker> CpuEvent::record() {
  auto marker = std::make_shared<CpuEventMarker>();
  std::lock_guard<std::mutex> lock(mutex_);
  latest_ = marker;
  return marker;
}

std::shared_ptr<CpuEventMarker> CpuEvent::latest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_;
}

bool CpuEvent::query() const {
  const auto marker = latest();
  return marker == nullptr || marker->done();
}

void CpuEvent::synchronize() const {
  if (const auto marker = latest()) marker->wait();
}

float elapsed_milliseconds(const CpuEvent& start, const CpuEvent& end) {
  const auto first = start.latest();
  const auto last = end.latest();
  if (first == nullptr || last == nullptr) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 std::string("cpu: event_elapsed_time: the ") + (first ? "end" : "start") +
                     " event was never recorded");
  }
  if (!first->done() || !last->done()) {
    plugin::fail(OMNIRT_STATUS_NOT_READY,
                 "cpu: event_elapsed_time: an event has not completed yet");
  }
  const std::chrono::duration<float, std::milli> elapsed =
      last->completed_at() - first->completed_at();
  return elapsed.count();
}

}  // namespace omnirt::cpu
