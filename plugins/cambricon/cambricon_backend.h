// The cambricon backend: Cambricon MLUs through CNRT (libcnrt.so), loaded on
// first real use. omnirt/cpp/plugin.hpp turns this class into the C vtable;
// slots it has no method for (modules, named ops, stream-ordered allocation,
// graph capture) stay NULL, so the host answers NOT_SUPPORTED.
//
// Methods are implemented by area: cambricon_backend.cpp (entry, options,
// discovery), cambricon_device.cpp, cambricon_memory.cpp, cambricon_stream.cpp.
#ifndef OMNIRT_PLUGINS_CAMBRICON_CAMBRICON_BACKEND_H_
#define OMNIRT_PLUGINS_CAMBRICON_CAMBRICON_BACKEND_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cncl_library.h"
#include "cnrt_runtime.h"
#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/allocation_tracker.h"
#include "omnirt_plugin_common/collectives.h"
#include "omnirt_plugin_common/default_streams.h"
#include "omnirt_plugin_common/device_objects.h"
#include "omnirt_plugin_common/handle_registry.h"
#include "omnirt_plugin_common/lazy_runtime.h"
#include "omnirt_plugin_common/memory_plan.h"

namespace omnirt::cambricon {

using CambriconQueue = plugin_common::DeviceStream<cnrtQueue_t>;
using CambriconNotifier = plugin_common::DeviceEvent<cnrtNotifier_t>;

// One rank's CNCL communicator.
struct CnclCommunicator {
  cnclComm_t handle;
  int32_t device;
  int32_t rank;
  int32_t nranks;
};

class CambriconBackend {
 public:
  explicit CambriconBackend(const omnirt_backend_create_args& args);
  ~CambriconBackend();

  // Discovery (cambricon_backend.cpp).
  plugin::Availability is_available();
  void capabilities(omnirt_capabilities& caps);

  // Devices (cambricon_device.cpp).
  int32_t device_count();
  void device_info(int32_t device, omnirt_device_info& info);
  void device_synchronize(int32_t device);

  // Memory (cambricon_memory.cpp).
  void* malloc_device(int32_t device, size_t size);
  void free_device(int32_t device, void* ptr);
  void* malloc_host(size_t size);
  void free_host(void* ptr);
  void memcpy_sync(void* dst, const void* src, size_t size, int32_t kind);
  void memset_sync(void* ptr, int32_t value, size_t size);
  void memcpy_async(void* dst, const void* src, size_t size, int32_t kind, omnirt_stream* stream);
  void memset_async(void* ptr, int32_t value, size_t size, omnirt_stream* stream);
  void mem_get_info(int32_t device, size_t& free_bytes, size_t& total_bytes);
  void memory_stats(int32_t device, omnirt_memory_stats& stats);
  void reset_memory_stats(int32_t device);

  // Queues and notifiers as streams and events (cambricon_stream.cpp).
  omnirt_stream* stream_create(int32_t device);
  void stream_destroy(omnirt_stream* stream);
  void stream_synchronize(omnirt_stream* stream);
  bool stream_query(omnirt_stream* stream);
  void stream_wait_event(omnirt_stream* stream, omnirt_event* event);
  omnirt_stream* stream_get_default(int32_t device);
  omnirt_event* event_create(int32_t device);
  void event_destroy(omnirt_event* event);
  void event_record(omnirt_event* event, omnirt_stream* stream);
  bool event_query(omnirt_event* event);
  void event_synchronize(omnirt_event* event);
  float event_elapsed_time(omnirt_event* start, omnirt_event* end);

  // Collectives through CNCL (cambricon_collectives.cpp).
  omnirt_comm* comm_create(const omnirt_comm_create_args& args);
  void comm_create_local(const int32_t* devices, size_t num_devices, omnirt_comm** comms);
  void comm_destroy(omnirt_comm* comm);
  void comm_get_async_error(omnirt_comm* comm);
  void all_reduce(omnirt_comm* comm, const void* send, void* recv, size_t count, int32_t dtype,
                  int32_t op, omnirt_stream* stream);
  void all_gather(omnirt_comm* comm, const void* send, void* recv, size_t send_count,
                  int32_t dtype, omnirt_stream* stream);
  void reduce_scatter(omnirt_comm* comm, const void* send, void* recv, size_t recv_count,
                      int32_t dtype, int32_t op, omnirt_stream* stream);
  void broadcast(omnirt_comm* comm, const void* send, void* recv, size_t count, int32_t dtype,
                 int32_t root, omnirt_stream* stream);
  void send(omnirt_comm* comm, const void* buffer, size_t count, int32_t dtype, int32_t peer,
            omnirt_stream* stream);
  void recv(omnirt_comm* comm, void* buffer, size_t count, int32_t dtype, int32_t peer,
            omnirt_stream* stream);
  void group_start();
  void group_end();
  std::string collectives_library();

 private:
  // Enqueues `c` on `stream` through CNCL.
  void collective(omnirt_comm* comm, const plugin_common::Collective& c, omnirt_stream* stream);
  // The loaded runtime; throws UNAVAILABLE when it cannot be loaded.
  CnrtRuntime& runtime() { return runtime_.get(); }
  // The runtime, after checking it has every symbol `feature` needs.
  CnrtRuntime& runtime_for(uint64_t feature, const char* call);
  // Throws NOT_SUPPORTED unless a copy between the plan's two devices can run.
  void require_peer(const CnrtRuntime& rt, const plugin_common::MemoryPlan& plan);
  // A live queue, or nullptr for the default queue of the data's device.
  std::shared_ptr<CambriconQueue> find_queue(omnirt_stream* stream) const;
  // The queue a non-NULL handle names: created, or a device's default queue.
  std::shared_ptr<CambriconQueue> named_queue(omnirt_stream* stream) const;
  // Whether everything before the notifier's last placement has run (or it never was placed).
  bool completed(CnrtRuntime& rt, const CambriconNotifier& notifier);
  void destroy_leftovers() noexcept;

  plugin_common::LazyRuntime<CnrtRuntime> runtime_;
  plugin_common::AllocationTracker allocations_;
  // Picks the device a copy or set runs on.
  const plugin_common::MemoryPlanner planner_{allocations_, "cambricon"};
  plugin_common::HandleRegistry<CambriconQueue, omnirt_stream> queues_{"cambricon", "stream"};
  plugin_common::DefaultStreams<cnrtQueue_t> default_queues_{"cambricon"};
  plugin_common::HandleRegistry<CambriconNotifier, omnirt_event> notifiers_{"cambricon", "event"};
  CnclLibrary cncl_;
  plugin_common::HandleRegistry<CnclCommunicator, omnirt_comm> comms_{"cambricon", "communicator"};
};

}  // namespace omnirt::cambricon

#endif  // OMNIRT_PLUGINS_CAMBRICON_CAMBRICON_BACKEND_H_
