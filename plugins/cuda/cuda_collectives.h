// Collectives on the cuda backend: NCCL, found and loaded on the first
// communicator (nccl_library.h). Communicators are non-blocking NCCL
// communicators bounded by deadlines and watched (nccl_comm.h,
// nccl_watchdog.h). Streams map to the backend's cudaStream_t (NULL: the
// legacy default stream); group_start/group_end are ncclGroupStart/End on the
// calling thread.
//
// dtypes: NCCL's own; bool moves and reduces as u8 (sum and max are "or",
// prod and min "and", for elements that are 0 or 1); i16 moves as bytes and
// has no reduction (NOT_SUPPORTED). Option (backends.cuda.options):
// nccl_library, the path of the libnccl.so.2 to use.
#ifndef OMNIRT_PLUGINS_CUDA_CUDA_COLLECTIVES_H_
#define OMNIRT_PLUGINS_CUDA_CUDA_COLLECTIVES_H_

#include <memory>
#include <string>

#include "nccl_comm.h"
#include "nccl_library.h"
#include "nccl_watchdog.h"
#include "omnirt_plugin_common/collectives.h"
#include "omnirt_plugin_common/handle_registry.h"

namespace omnirt::cuda {

class CudaCollectives {
 public:
  explicit CudaCollectives(const std::string& nccl_library);
  CudaCollectives(const CudaCollectives&) = delete;
  CudaCollectives& operator=(const CudaCollectives&) = delete;

  /// Is NCCL here to load? Cheap (looks for the file once).
  bool present() const { return nccl_.present(); }
  /// "NCCL 2.21.5 (<path>)"; loads NCCL.
  std::string library() { return nccl_.describe(); }

  omnirt_comm* create(const Symbols& cuda, const omnirt_comm_create_args& args);
  void create_local(const Symbols& cuda, const int32_t* devices, size_t count, omnirt_comm** comms);
  void destroy(omnirt_comm* comm);
  void throw_if_failed(omnirt_comm* comm);

  /// Enqueues `c` on `stream` (a handle of this backend, or NULL).
  void submit(const Symbols& cuda, omnirt_comm* comm, const plugin_common::Collective& c,
              omnirt_stream* stream);
  void group_start();
  void group_end();

  /// What group_end still owes a collective issued inside a group: noting it
  /// for the watchdog once launched; for the first on each communicator,
  /// waiting for the launch and unpinning the communicator (pinned from the
  /// first collective on, so that no abort frees it before ncclGroupEnd).
  struct Issued {
    std::shared_ptr<NcclComm> comm;
    cudaStream_t stream;
    plugin_common::Collective collective;
    uint64_t sequence;
    ncclComm_t pinned;  // the pinned handle, on the first entry of a communicator; else null
    bool enqueued;      // NCCL took it (false when the call failed)
  };

 private:
  NcclLibrary nccl_;
  plugin_common::HandleRegistry<NcclComm, omnirt_comm> comms_{"cuda", "communicator"};
  NcclWatchdog watchdog_;  // last: stops before the communicators go
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_COLLECTIVES_H_
