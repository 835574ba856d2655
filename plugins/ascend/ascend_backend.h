// The ascend backend: Huawei Ascend NPUs through AscendCL (libascendcl.so),
// loaded on first real use. omnirt/cpp/plugin.hpp turns this class into the C
// vtable; slots it has no method for (modules, named ops, stream-ordered
// allocation, graph capture) stay NULL, so the host answers NOT_SUPPORTED.
//
// Methods are implemented by area: ascend_backend.cpp (entry, options,
// discovery), ascend_device.cpp, ascend_memory.cpp, ascend_stream.cpp,
// ascend_collectives.cpp (HCCL).
#ifndef OMNIRT_PLUGINS_ASCEND_ASCEND_BACKEND_H_
#define OMNIRT_PLUGINS_ASCEND_ASCEND_BACKEND_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "acl_runtime.h"
#include "hccl_library.h"
#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/allocation_tracker.h"
#include "omnirt_plugin_common/collectives.h"
#include "omnirt_plugin_common/default_streams.h"
#include "omnirt_plugin_common/device_objects.h"
#include "omnirt_plugin_common/handle_registry.h"
#include "omnirt_plugin_common/lazy_runtime.h"
#include "omnirt_plugin_common/memory_plan.h"

namespace omnirt::ascend {

using AscendStream = plugin_common::DeviceStream<aclrtStream>;
using AscendEvent = plugin_common::DeviceEvent<aclrtEvent>;

// One rank's HCCL communicator.
struct HcclCommunicator {
  HcclComm handle;
  int32_t device;
  int32_t rank;
  int32_t nranks;
};

class AscendBackend {
 public:
  explicit AscendBackend(const omnirt_backend_create_args& args);
  ~AscendBackend();

  // Discovery (ascend_backend.cpp).
  plugin::Availability is_available();
  void capabilities(omnirt_capabilities& caps);

  // Devices (ascend_device.cpp).
  int32_t device_count();
  void device_info(int32_t device, omnirt_device_info& info);
  void device_synchronize(int32_t device);

  // Memory (ascend_memory.cpp).
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

  // Streams and events (ascend_stream.cpp).
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

  // Collectives through HCCL (ascend_collectives.cpp).
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
  // Enqueues `c` on `stream` through HCCL.
  void collective(omnirt_comm* comm, const plugin_common::Collective& c, omnirt_stream* stream);
  // The loaded runtime; throws UNAVAILABLE when it cannot be loaded.
  AclRuntime& runtime() { return runtime_.get(); }
  // The runtime, after checking it has every symbol `feature` needs.
  AclRuntime& runtime_for(uint64_t feature, const char* call);
  // Checks and enables what a copy between two devices needs (no-op otherwise).
  void prepare_peer_copy(AclRuntime& rt, const plugin_common::MemoryPlan& plan);
  // A live stream, or nullptr for the default stream of the data's device.
  std::shared_ptr<AscendStream> find_stream(omnirt_stream* stream) const;
  // The stream a non-NULL handle names: created, or a device's default stream.
  std::shared_ptr<AscendStream> named_stream(omnirt_stream* stream) const;
  // Whether everything before the event's last record has run (or it never was).
  bool completed(AclRuntime& rt, const AscendEvent& marker);
  void destroy_leftovers() noexcept;

  aclrtMemMallocPolicy malloc_policy_ = ACL_MEM_MALLOC_HUGE_FIRST;
  plugin_common::LazyRuntime<AclRuntime> runtime_;
  plugin_common::AllocationTracker allocations_;
  // Picks the device context of a copy and AscendCL's destMax/maxCount bound.
  const plugin_common::MemoryPlanner planner_{allocations_, "ascend"};
  plugin_common::HandleRegistry<AscendStream, omnirt_stream> streams_{"ascend", "stream"};
  plugin_common::DefaultStreams<aclrtStream> default_streams_{"ascend"};
  plugin_common::HandleRegistry<AscendEvent, omnirt_event> events_{"ascend", "event"};
  HcclLibrary hccl_;
  plugin_common::HandleRegistry<HcclCommunicator, omnirt_comm> comms_{"ascend", "communicator"};
};

}  // namespace omnirt::ascend

#endif  // OMNIRT_PLUGINS_ASCEND_ASCEND_BACKEND_H_
