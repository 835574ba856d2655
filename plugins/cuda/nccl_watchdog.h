// The thread that bounds what NCCL cannot: every 20 ms it asks each live
// communicator for NCCL's asynchronous error and whether its oldest marker is
// late (NcclComm::inspect), so a collective whose peer died or never came
// fails with TIMEOUT instead of hanging its stream. Started with the first
// communicator, stopped with the backend.
#ifndef OMNIRT_PLUGINS_CUDA_NCCL_WATCHDOG_H_
#define OMNIRT_PLUGINS_CUDA_NCCL_WATCHDOG_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "nccl_comm.h"

namespace omnirt::cuda {

class NcclWatchdog {
 public:
  NcclWatchdog() = default;
  ~NcclWatchdog();
  NcclWatchdog(const NcclWatchdog&) = delete;
  NcclWatchdog& operator=(const NcclWatchdog&) = delete;

  /// Watches `comm` while it lives.
  void watch(const std::shared_ptr<NcclComm>& comm);

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  std::vector<std::weak_ptr<NcclComm>> comms_;
  std::thread thread_;
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_NCCL_WATCHDOG_H_
