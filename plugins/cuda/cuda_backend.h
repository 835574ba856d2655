// The cuda backend: CUDA devices through a lazily loaded libcudart (see
// cuda_symbols.h), device memory behind a selectable allocator, real streams,
// events and graphs, hand-written kernels for the omnirt.nn ops and a
// TorchScript engine on a CUDA libtorch. omnirt/cpp/plugin.hpp turns this
// class into the C vtable: each public method named after a slot fills it.
//
// Options (config: backends.cuda.options): allocator = caching | async | plain;
// nccl_library = the libnccl.so.2 to use for collectives (cuda_collectives.h).
#ifndef OMNIRT_PLUGINS_CUDA_CUDA_BACKEND_H_
#define OMNIRT_PLUGINS_CUDA_CUDA_BACKEND_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_collectives.h"
#include "cuda_engine.h"
#include "cuda_kernels.h"
#include "cuda_memory.h"
#include "cuda_runtime.h"
#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/default_streams.h"
#include "omnirt_plugin_common/once.h"

namespace omnirt::cuda {

class CudaBackend {
 public:
  explicit CudaBackend(const omnirt_backend_create_args& args);
  ~CudaBackend();

  // Discovery (cuda_backend.cpp).
  plugin::Availability is_available();
  void capabilities(omnirt_capabilities& caps);
  int32_t device_count();
  void device_info(int32_t device, omnirt_device_info& info);

  // Memory (cuda_backend.cpp).
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

  // Streams, events, graph capture (cuda_stream.cpp).
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
  void stream_begin_capture(omnirt_stream* stream);
  omnirt_graph* stream_end_capture(omnirt_stream* stream);
  void graph_launch(omnirt_graph* graph, omnirt_stream* stream);
  void graph_destroy(omnirt_graph* graph);

  // Modules (cuda_engine.cpp).
  omnirt_executable* module_load(int32_t device, const omnirt_module_source& source,
                                 int32_t tier, const char* tag);
  void executable_run(omnirt_executable* executable, const DLTensor* inputs, size_t num_inputs,
                      omnirt_stream* stream, DLManagedTensor** outputs, size_t output_capacity,
                      size_t* num_outputs);
  void executable_destroy(omnirt_executable* executable);
  // A dict output's key, or ""; owned by `output`.
  const char* output_name(omnirt_executable* executable, const DLManagedTensor* output);
  // Loads the TorchScript engine now (CUDA must run here); its version.
  std::string engine_prepare(const char* format);

  // Named ops (cuda_kernels.cpp).
  void list_op_sets(const omnirt_op_set** sets, size_t* count);
  void list_ops(const omnirt_op_decl** ops, size_t* count);
  void op_run(const char* name, const DLTensor* inputs, size_t num_inputs, DLTensor* outputs,
              size_t num_outputs, const omnirt_op_attr* attrs, size_t num_attrs,
              omnirt_stream* stream);

  // Collectives through NCCL (cuda_collectives.cpp).
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
  // The loaded runtime; throws UNAVAILABLE when CUDA cannot run here.
  const Symbols& cuda() { return runtime_.get(); }
  // `device` checked against the device count (OUT_OF_RANGE otherwise).
  int checked_device(int32_t device) {
    const int count = runtime_.device_count();
    if (device < 0 || device >= count) reject_device(device, count);
    return device;
  }
  [[noreturn]] void reject_device(int32_t device, int count);
  // The allocator of `device`, which is checked (OUT_OF_RANGE). Each device's
  // allocator is made on that device's first use, so that a process using one
  // GPU sets nothing up on the others. Inline, with the made ones in a flat
  // table: every memory call asks.
  DeviceAllocator& allocator(int32_t device) {
    if (uint32_t(device) < uint32_t(allocators_ready_count_.load(std::memory_order_acquire))) {
      if (DeviceAllocator* made = allocators_ready_[size_t(device)].load(std::memory_order_acquire)) {
        return *made;
      }
    }
    return make_allocator_for(device);
  }
  DeviceAllocator& make_allocator_for(int32_t device);
  // engine_memory_'s callbacks (cuda_engine.cpp); `context` is the backend.
  static void* engine_allocate(void* context, int32_t device, size_t size, void* stream) noexcept;
  static void engine_free(void* context, int32_t device, void* ptr) noexcept;
  // Before the allocators go: the engine stops calling them (cuda_engine.cpp).
  void detach_engine_memory() noexcept;
  // The device a copy or memset touches: where its device pointer lives.
  int device_for(const void* ptr);
  // `device` if it names one (>= 0), else the calling thread's current device.
  int or_current(int device);
  // Where a copy runs: the device made current, and for a device-to-device
  // copy between two GPUs both sides, for a peer copy.
  struct CopyRoute {
    int device = 0;
    int peer_src = -1;
    int peer_dst = -1;
    bool peer() const { return peer_src >= 0; }
  };
  CopyRoute route_copy(void* dst, const void* src, int32_t kind);

  const std::string allocator_kind_;
  Runtime runtime_;
  plugin_common::Once allocators_sized_;  // sizes the four below
  std::unique_ptr<plugin_common::Once[]> allocator_made_;
  std::vector<std::unique_ptr<DeviceAllocator>> allocators_;  // one per device
  std::unique_ptr<std::atomic<DeviceAllocator*>[]> allocators_ready_;  // each once made
  std::atomic<int> allocators_ready_count_{0};  // the table's size, once sized
  // stream_get_default's handles: the legacy default stream of each device.
  plugin_common::DefaultStreams<cudaStream_t> default_streams_{"cuda"};
  Kernels kernels_;
  Engine engine_;
  // What the engine's modules take their device memory from: the allocators above.
  const omnirt_cuda_engine_memory engine_memory_{sizeof(omnirt_cuda_engine_memory), this,
                                                 &CudaBackend::engine_allocate,
                                                 &CudaBackend::engine_free};
  CudaCollectives collectives_;  // first to go: communicators flush before the allocators
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_BACKEND_H_
