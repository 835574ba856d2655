// One rank's gloo communicator: joins its group through the embedder's store,
// runs operations with tags derived from their sequence number and shape,
// and turns any failure into an error naming the ranks that did not join.
//
// Why shapes are in the tags: gloo aborts the process when two ranks meet in
// an operation with different sizes (an enforce on its I/O thread). With the
// count, dtype and reduction hashed into the tag, such ranks never meet; they
// time out, and the failure report below tells the mismatch.
//
// Failure report: a rank whose collective fails closes its connections (so
// the others fail at once instead of at their time limit), publishes what it
// was running under omnirt/failed/<sequence>/<rank>, and waits a short grace
// for the others' reports. Ranks that never report are named as missing
// (exited, or stuck elsewhere); reports that disagree name the mismatch. The
// grace comes out of the time limit, so the whole failure takes at most it.
#ifndef OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_GLOO_COMM_H_
#define OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_GLOO_COMM_H_

#include <gloo/transport/device.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "../gloo_api.h"
#include "gloo_ops.h"
#include "local_store.h"
#include "omnirt_plugin_common/rendezvous.h"

struct omnirt_cpu_gloo_comm {};  // the C handle; GlooComm derives from it

namespace omnirt::cpu::gloo_lib {

class GlooComm : public omnirt_cpu_gloo_comm {
 public:
  /// Joins rank `rank` of `nranks` meeting through `store` under `prefix`
  /// within `timeout_ms`. `local_store`, when given, is the store and lives
  /// as long as this communicator.
  GlooComm(std::shared_ptr<gloo::transport::Device> device, const omnirt_kv_store& store,
           const std::string& prefix, int32_t rank, int32_t nranks, uint32_t timeout_ms,
           std::shared_ptr<LocalStore> local_store = nullptr);
  ~GlooComm();
  GlooComm(const GlooComm&) = delete;
  GlooComm& operator=(const GlooComm&) = delete;

  /// omnirt_cpu_gloo_api::run; throws plugin::Error.
  void run(const omnirt_cpu_gloo_op* ops, size_t num_ops);
  /// Throws the failure that broke this communicator, if any.
  void throw_if_failed() const;

 private:
  void run_collective(const omnirt_cpu_gloo_op& op, uint32_t tag);
  using Clock = std::chrono::steady_clock;
  // Breaks the communicator on a failed `op` (of a run that began at
  // `started`), diagnoses and throws.
  [[noreturn]] void fail(const omnirt_cpu_gloo_op& op, const std::string& cause, Clock::time_point started);
  std::string diagnose_transfer(const omnirt_cpu_gloo_op& op, const std::string& cause) const;
  std::pair<omnirt_status, std::string> diagnose_collective(const omnirt_cpu_gloo_op& op,
                                                            const std::string& cause,
                                                            Clock::time_point started) const;

  const std::shared_ptr<LocalStore> local_store_;  // before rendezvous_, which refers to it
  const plugin_common::Rendezvous rendezvous_;
  const std::chrono::milliseconds grace_;
  const std::chrono::milliseconds op_timeout_;
  Context context_;
  mutable std::mutex mutex_;
  omnirt_status failure_ = OMNIRT_STATUS_OK;
  std::string failure_message_;
};

}  // namespace omnirt::cpu::gloo_lib

#endif  // OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_GLOO_COMM_H_
