// One rank's NCCL communicator. Made non-blocking (ncclConfig blocking = 0),
// so that connecting, launching and finalizing all end at a deadline instead
// of hanging. What NCCL cannot bound itself (a collective whose peer never
// joins spins on the GPU forever) is bounded by markers: a collective notes
// its stream (a mutex and a store: the launch path stays NCCL's), and the
// watchdog (nccl_watchdog.h) records an event on each noted stream, which
// must complete within the time limit counted from the first collective it
// covers. A failure (a late marker, an asynchronous NCCL error) aborts the
// communicator, which ends its kernels, and is kept: every later call
// returns it.
//
// The abort frees NCCL's handle, so it waits for every use of it to end:
// each NCCL call pins the handle, and so does a group for the communicators
// it issued to, until ncclGroupEnd launched them. A failure while pinned is
// kept at once; the abort follows when the last pin goes.
#ifndef OMNIRT_PLUGINS_CUDA_NCCL_COMM_H_
#define OMNIRT_PLUGINS_CUDA_NCCL_COMM_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "nccl_library.h"
#include "omnirt_plugin_common/collectives.h"

namespace omnirt::cuda {

class NcclComm {
 public:
  using Clock = std::chrono::steady_clock;

  /// Rank args.rank of args.nranks on args.device, meeting through args.store:
  /// rank 0's unique id is shared there. Blocks until connected; TIMEOUT
  /// naming the ranks that never arrived, or saying NCCL did not connect.
  static std::shared_ptr<NcclComm> create(NcclLibrary& nccl, const Symbols& cuda,
                                          const omnirt_comm_create_args& args);
  /// One rank per device of this process (the group form of ncclCommInitAll).
  static std::vector<std::shared_ptr<NcclComm>> create_local(NcclLibrary& nccl, const Symbols& cuda,
                                                             const int32_t* devices, size_t count);

  NcclComm(NcclLibrary& nccl, const Symbols& cuda, ncclComm_t handle, int device, int rank,
           int nranks, uint32_t timeout_ms);
  /// close(), ignoring its failure.
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  int device() const { return device_; }
  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  /// The number of the next collective, for messages.
  uint64_t next_sequence() { return sequence_.fetch_add(1); }

  /// Calls `enqueue(handle)` (one NCCL call, on this communicator's device)
  /// unless the communicator failed; waits out ncclInProgress until the
  /// deadline. Throws the failure.
  template <class Enqueue>
  void call(const char* name, Enqueue&& enqueue) {
    const ncclComm_t handle = pin();
    try {
      const ncclResult_t result = enqueue(handle);
      if (result == ncclInProgress) {
        wait_ready(handle, name);
      } else {
        nccl_.check(result, name, handle);
      }
    } catch (...) {
      unpin();
      throw;
    }
    unpin();
  }
  /// Keeps NCCL's handle from an abort until unpin(): for a group, from its
  /// first collective on this communicator until ncclGroupEnd launched them.
  /// Throws the failure, if any, instead.
  ncclComm_t pin();
  void unpin();
  /// Waits, with a pin held, until NCCL finished launching this
  /// communicator's work (non-blocking communicators answer ncclInProgress).
  void wait_ready(ncclComm_t pinned, const char* what);
  /// Notes that `c` (number `sequence`) was just enqueued on `stream`: the
  /// watchdog's next marker on that stream covers it.
  void note(cudaStream_t stream, const plugin_common::Collective& c, uint64_t sequence);
  /// The watchdog's look: NCCL's asynchronous error; a marker on every noted
  /// stream (not a capturing one: captured work does not run now); whether
  /// the oldest markers are late.
  void inspect();
  /// Throws the failure that broke this communicator, if any.
  void throw_if_failed() const;
  /// Finalizes (flushing the enqueued work) and destroys the NCCL
  /// communicator within the time limit; else aborts it and throws TIMEOUT.
  /// Once closed, or after a failure aborted it, does nothing.
  void close();

 private:
  // Work noted on a stream since the last marker there: its first collective.
  struct Noted {
    cudaStream_t stream;
    Clock::time_point since;
    plugin_common::Collective first;
    uint64_t sequence;
  };
  struct Marker {
    cudaEvent_t event;
    Clock::time_point deadline;
    std::string what;
  };
  void place_markers();
  void check_markers();
  // Keeps the first failure; aborts the communicator (ending its kernels)
  // now, or when the last pin goes.
  void fail(omnirt_status status, const std::string& message);
  void abort_unpinned_locked();

  NcclLibrary& nccl_;
  const Symbols& cuda_;
  const int device_;
  const int rank_;
  const int nranks_;
  const uint32_t timeout_ms_;
  std::atomic<uint64_t> sequence_{0};
  mutable std::mutex mutex_;
  std::condition_variable unpinned_;
  int pins_ = 0;
  ncclComm_t handle_;  // null once aborted or closed
  omnirt_status failure_ = OMNIRT_STATUS_OK;
  std::string failure_message_;
  std::mutex noted_mutex_;
  std::vector<Noted> noted_;
  std::mutex markers_mutex_;  // the watchdog's, and the destructor's
  std::deque<Marker> markers_;
  std::vector<cudaEvent_t> spare_events_;
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_NCCL_COMM_H_
