// The cpu backend: the machine as one device, host memory, streams run by
// worker threads. omnirt/cpp/plugin.hpp turns this class into the C vtable:
// each public method named after a slot fills that slot (signatures are listed
// in plugin.hpp), every other slot stays NULL.
#ifndef OMNIRT_PLUGINS_CPU_CPU_BACKEND_H_
#define OMNIRT_PLUGINS_CPU_CPU_BACKEND_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "collectives/cpu_collectives.h"
#include "cpu_allocator.h"
#include "cpu_device.h"
#include "cpu_event.h"
#include "cpu_graph.h"
#include "omnirt_plugin_common/handle_registry.h"
#include "cpu_stream.h"
#include "engine/cpu_modules.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu {

class CpuBackend {
 public:
  CpuBackend();
  // Reads options `threads` (engine/cpu_modules.h) and `gloo_hostname`
  // (collectives/cpu_collectives.h).
  explicit CpuBackend(const omnirt_backend_create_args& args);

  // Discovery.
  plugin::Availability is_available();
  void capabilities(omnirt_capabilities& caps);
  int32_t device_count();
  void device_info(int32_t device, omnirt_device_info& info);

  // Memory.
  void* malloc_device(int32_t device, size_t size);
  void free_device(int32_t device, void* ptr);
  void* malloc_host(size_t size);
  void free_host(void* ptr);
  void* malloc_async(size_t size, omnirt_stream* stream);
  void free_async(void* ptr, omnirt_stream* stream);
  void memcpy_sync(void* dst, const void* src, size_t size, int32_t kind);
  void memset_sync(void* ptr, int32_t value, size_t size);
  void memcpy_async(void* dst, const void* src, size_t size, int32_t kind,
                    omnirt_stream* stream);
  void memset_async(void* ptr, int32_t value, size_t size, omnirt_stream* stream);
  void mem_get_info(int32_t device, size_t& free_bytes, size_t& total_bytes);
  void memory_stats(int32_t device, omnirt_memory_stats& stats);
  void reset_memory_stats(int32_t device);
  void device_synchronize(int32_t device);

  // Streams and events.
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

  // Graph capture.
  void stream_begin_capture(omnirt_stream* stream);
  omnirt_graph* stream_end_capture(omnirt_stream* stream);
  void graph_launch(omnirt_graph* graph, omnirt_stream* stream);
  void graph_destroy(omnirt_graph* graph);

  // Modules, defined in engine/cpu_backend_modules.cpp, and named ops,
  // defined in ops/cpu_backend_ops.cpp. Both run on the caller's thread once
  // earlier work on `stream` is done.
  omnirt_executable* module_load(int32_t device, const omnirt_module_source& source,
                                 int32_t tier, const char* tag);
  void executable_run(omnirt_executable* executable, const DLTensor* inputs, size_t num_inputs,
                      omnirt_stream* stream, DLManagedTensor** outputs, size_t output_capacity,
                      size_t* num_outputs);
  void executable_destroy(omnirt_executable* executable);
  const char* output_name(omnirt_executable* executable, const DLManagedTensor* output);
  std::string engine_prepare(const char* format);
  void list_op_sets(const omnirt_op_set** sets, size_t* count);
  void list_ops(const omnirt_op_decl** ops, size_t* count);
  void op_run(const char* name, const DLTensor* inputs, size_t num_inputs, DLTensor* outputs,
              size_t num_outputs, const omnirt_op_attr* attrs, size_t num_attrs,
              omnirt_stream* stream);

  // Collectives, defined in collectives/cpu_backend_collectives.cpp: gloo
  // over TCP; on a stream, run by its worker in order; on NULL, complete on
  // return (collectives/cpu_collectives.h).
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

  // The stream a caller's handle names; NULL (and stream_get_default's
  // handle) is the device's default stream. Throws INVALID_ARGUMENT for an
  // unknown handle.
  std::shared_ptr<CpuStream> resolve_stream(omnirt_stream* stream) const;

 private:
  // The handle stream_get_default gives out: the default stream's address.
  omnirt_stream* default_handle() const {
    return reinterpret_cast<omnirt_stream*>(default_stream_.get());
  }
  // NULL or the default stream's handle.
  bool is_default(omnirt_stream* stream) const {
    return stream == nullptr || stream == default_handle();
  }
  // A created stream's worker, or null for NULL and the default stream's
  // handle (collectives run synchronously).
  std::shared_ptr<CpuStream> stream_for_collective(omnirt_stream* stream) const;

  // Blocks until earlier work on `stream` is done (synchronous calls keep
  // stream order); refuses a capturing stream.
  void wait_for(omnirt_stream* stream) const;

  // Declaration order is destruction order in reverse: streams drain (their
  // queued frees still reach the allocator) before the allocator goes.
  CpuDevice device_;
  CpuAllocator allocator_;
  const std::shared_ptr<CpuStream> default_stream_;
  // Destroyed after the created streams drained the collectives queued on them.
  CpuCollectives collectives_;
  plugin_common::HandleRegistry<CpuStream, omnirt_stream> streams_{"cpu", "stream"};
  plugin_common::HandleRegistry<CpuEvent, omnirt_event> events_{"cpu", "event"};
  plugin_common::HandleRegistry<CpuGraph, omnirt_graph> graphs_{"cpu", "graph"};
  CpuModules modules_;  // first to go: executables before streams
};

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_CPU_BACKEND_H_
