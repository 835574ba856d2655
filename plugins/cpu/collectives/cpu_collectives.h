// Collectives on the cpu backend: gloo over TCP, from a library of its own
// (gloo_library.h) loaded on the first communicator. Devices are the one cpu
// device; comm_create_local makes N ranks of this process ("devices" all 0).
//
// Streams: a collective on a stream is enqueued on that stream's worker and
// completes in stream order (its failure is the communicator's, see
// comm_get_async_error); on NULL (or the default stream's handle) it runs on
// the calling thread after the default stream's earlier work and is complete when the call returns.
// Between group_start and group_end, the calling thread's collectives are
// launched together (cpu_group.h). Capturing streams take no collectives.
//
// Option (config: backends.cpu.options): gloo_hostname, the address or name
// each rank listens on and tells its peers (default: this machine's
// hostname; 127.0.0.1 for ranks of one machine).
#ifndef OMNIRT_PLUGINS_CPU_COLLECTIVES_CPU_COLLECTIVES_H_
#define OMNIRT_PLUGINS_CPU_COLLECTIVES_CPU_COLLECTIVES_H_

#include <memory>
#include <string>

#include "cpu_comm.h"
#include "cpu_stream.h"
#include "gloo_library.h"
#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/handle_registry.h"

namespace omnirt::cpu {

class CpuCollectives {
 public:
  CpuCollectives(const plugin::Options& options, std::shared_ptr<CpuStream> default_stream);
  /// Destroys the communicators callers left, once their queued work ran.
  ~CpuCollectives();
  CpuCollectives(const CpuCollectives&) = delete;
  CpuCollectives& operator=(const CpuCollectives&) = delete;

  /// Sets COLLECTIVES while the gloo library is installed (loads nothing).
  void describe(omnirt_capabilities& caps) const;
  /// "gloo 0.5.0 (TCP)"; loads the library.
  std::string library();

  omnirt_comm* create(const omnirt_comm_create_args& args);
  void create_local(size_t num_ranks, omnirt_comm** comms);
  void destroy(omnirt_comm* comm);
  void throw_if_failed(omnirt_comm* comm);

  /// Issues `c` on `comm`: into the calling thread's open group, on `stream`'s
  /// worker, or (stream null) now.
  void submit(omnirt_comm* comm, const plugin_common::Collective& c,
              const std::shared_ptr<CpuStream>& stream);
  void group_start();
  void group_end();

 private:
  const omnirt_cpu_gloo_api& gloo() { return library_.table(); }

  const std::string hostname_;
  const std::shared_ptr<CpuStream> default_stream_;
  GlooLibrary library_{kGlooCompanion};
  plugin_common::HandleRegistry<CpuComm, omnirt_comm> comms_{"cpu", "communicator"};
};

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_COLLECTIVES_CPU_COLLECTIVES_H_
