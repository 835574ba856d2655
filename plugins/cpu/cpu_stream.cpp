#include "cpu_stream.h"

#include <utility>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu {

CpuStream::~CpuStream() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_queued_.notify_one();
  if (worker_.joinable()) worker_.join();
}

void CpuStream::enqueue(Task task) { push({std::move(task), nullptr}); }

void CpuStream::enqueue_marker(std::shared_ptr<CpuEventMarker> marker) {
  push({nullptr, std::move(marker)});
}

void CpuStream::push(Item item) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!worker_.joinable()) worker_ = std::thread(&CpuStream::run_worker, this);
    queue_.push_back(std::move(item));
    ++enqueued_;
  }
  work_queued_.notify_one();
}

void CpuStream::submit(Command command) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (capturing_) {
      captured_.push_back(std::move(command));
      return;
    }
  }
  command(*this);
}

void CpuStream::submit_task(Task task) {
  submit([task = std::move(task)](CpuStream& stream) { stream.enqueue(task); });
}

void CpuStream::synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = enqueued_;
  work_done_.wait(lock, [&] { return completed_ >= target; });
}

bool CpuStream::idle() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ == enqueued_;
}

void CpuStream::begin_capture() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (capturing_) plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, "cpu: stream is already capturing");
  capturing_ = true;
}

std::vector<CpuStream::Command> CpuStream::end_capture() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!capturing_) plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, "cpu: stream is not capturing");
  capturing_ = false;
  return std::exchange(captured_, {});
}

bool CpuStream::capturing() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return capturing_;
}

void CpuStream::run_worker() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_queued_.wait(lock, [&] { return !queue_.empty() || stopping_; });
    if (queue_.empty()) return;  // stopping, and everything has run
    Item item = std::move(queue_.front());
    queue_.pop_front();
    if (item.task) {
      lock.unlock();
      item.task();
      item.task = nullptr;  // drop what the task holds before reporting it done
      lock.lock();
    }
    ++completed_;
    if (item.marker) item.marker->complete();
    work_done_.notify_all();
  }
}

}  // namespace omnirt::cpu
