// One rank's communicator as the cpu plugin holds it: the gloo library's
// communicator, the numbering that makes every rank name an operation alike,
// and a count of the work still queued on streams, which destroy waits for.
#ifndef OMNIRT_PLUGINS_CPU_COLLECTIVES_CPU_COMM_H_
#define OMNIRT_PLUGINS_CPU_COLLECTIVES_CPU_COMM_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "gloo_api.h"
#include "omnirt_plugin_common/collectives.h"

namespace omnirt::cpu {

class CpuComm {
 public:
  /// Takes ownership of `gloo`, made by `api`.
  CpuComm(const omnirt_cpu_gloo_api& api, omnirt_cpu_gloo_comm* gloo, int32_t rank, int32_t nranks);
  ~CpuComm();
  CpuComm(const CpuComm&) = delete;
  CpuComm& operator=(const CpuComm&) = delete;

  int32_t rank() const { return rank_; }
  int32_t nranks() const { return nranks_; }

  /// `c` as the gloo library takes it, numbered now, in issue order:
  /// collectives in the communicator's order, sends per destination and
  /// receives per source. Checks it first (INVALID_ARGUMENT).
  omnirt_cpu_gloo_op issue(const plugin_common::Collective& c);
  /// Runs `ops` now (see omnirt_cpu_gloo_api::run); throws the failure.
  void run(const omnirt_cpu_gloo_op* ops, size_t num_ops);
  /// Throws the failure that broke this communicator, if any.
  void throw_if_failed();

  /// Work on a stream that will run operations of this communicator.
  void begin_queued();
  void end_queued();
  /// Blocks until no queued work is left.
  void wait_idle();

 private:
  const omnirt_cpu_gloo_api& api_;
  omnirt_cpu_gloo_comm* const gloo_;
  const int32_t rank_;
  const int32_t nranks_;
  std::atomic<uint64_t> next_collective_{0};
  const std::unique_ptr<std::atomic<uint64_t>[]> next_send_;  // per destination
  const std::unique_ptr<std::atomic<uint64_t>[]> next_recv_;  // per source
  std::mutex mutex_;
  std::condition_variable idle_;
  int64_t queued_ = 0;
};

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_COLLECTIVES_CPU_COMM_H_
