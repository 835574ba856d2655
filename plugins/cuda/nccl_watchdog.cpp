#include "nccl_watchdog.h"

#include <algorithm>
#include <chrono>

namespace omnirt::cuda {
namespace {

constexpr auto kPeriod = std::chrono::milliseconds(20);

}  // namespace

NcclWatchdog::~NcclWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void NcclWatchdog::watch(const std::shared_ptr<NcclComm>& comm) {
  std::lock_guard<std::mutex> lock(mutex_);
  comms_.push_back(comm);
  if (!thread_.joinable()) thread_ = std::thread(&NcclWatchdog::run, this);
}

void NcclWatchdog::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_requested_.wait_for(lock, kPeriod, [&] { return stopping_; })) {
    comms_.erase(std::remove_if(comms_.begin(), comms_.end(), [](const auto& c) { return c.expired(); }),
                 comms_.end());
    std::vector<std::shared_ptr<NcclComm>> live;
    for (const auto& weak : comms_) {
      if (auto comm = weak.lock()) live.push_back(std::move(comm));
    }
    lock.unlock();
    for (const auto& comm : live) {
      try {
        comm->inspect();
      } catch (...) {  // CUDA itself failing: the next call on the stream says so
      }
    }
    live.clear();  // a communicator destroyed meanwhile goes here, off the lock
    lock.lock();
  }
}

}  // namespace omnirt::cuda
