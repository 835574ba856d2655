// C entry points routed to a backend's vtable: memory, streams, events and
// graphs. Each checks its arguments, then forwards through call_slot(); no
// lock, allocation or lookup on the way (the routing overhead budget is 5 ns).
#include "backend.h"
#include "error.h"
#include "omnirt/host.h"
#include "plugin_call.h"
#include "sized.h"

namespace {

using omnirt::call_slot;
using omnirt::require_device;
using omnirt::require_non_null;
using omnirt::require_usable;
using V = omnirt_backend_vtable;

// A buffer argument may be NULL only when no byte of it is touched.
inline omnirt_status require_buffer(const void* pointer, size_t size, const char* call,
                                    const char* argument) noexcept {
  return size == 0 ? OMNIRT_STATUS_OK : require_non_null(pointer, call, argument);
}

inline omnirt_status require_memcpy_kind(int32_t kind, const char* call) noexcept {
  if (__builtin_expect(kind >= OMNIRT_MEMCPY_HOST_TO_HOST && kind <= OMNIRT_MEMCPY_DEVICE_TO_DEVICE, 1)) {
    return OMNIRT_STATUS_OK;
  }
  return omnirt::fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: kind {} is not an omnirt_memcpy_kind", call,
                      kind);
}

}  // namespace

// --- memory -------------------------------------------------------------

omnirt_status omnirt_malloc(omnirt_backend* backend, int32_t device, size_t size, void** ptr) {
  constexpr const char* kCall = "omnirt_malloc";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(ptr, kCall, "ptr"));
  OMNIRT_RETURN_IF_ERROR(require_device(*backend, device, kCall));
  return call_slot<&V::malloc_device>(*backend, "malloc_device", device, size, ptr);
}

omnirt_status omnirt_free(omnirt_backend* backend, int32_t device, void* ptr) {
  constexpr const char* kCall = "omnirt_free";
  OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
  if (ptr == nullptr) return OMNIRT_STATUS_OK;
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_device(*backend, device, kCall));
  return call_slot<&V::free_device>(*backend, "free_device", device, ptr);
}

omnirt_status omnirt_malloc_host(omnirt_backend* backend, size_t size, void** ptr) {
  constexpr const char* kCall = "omnirt_malloc_host";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(ptr, kCall, "ptr"));
  return call_slot<&V::malloc_host>(*backend, "malloc_host", size, ptr);
}

omnirt_status omnirt_free_host(omnirt_backend* backend, void* ptr) {
  constexpr const char* kCall = "omnirt_free_host";
  OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
  if (ptr == nullptr) return OMNIRT_STATUS_OK;
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  return call_slot<&V::free_host>(*backend, "free_host", ptr);
}

omnirt_status omnirt_malloc_async(omnirt_backend* backend, size_t size, omnirt_stream* stream, void** ptr) {
  constexpr const char* kCall = "omnirt_malloc_async";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(ptr, kCall, "ptr"));
  return call_slot<&V::malloc_async>(*backend, "malloc_async", size, stream, ptr);
}

omnirt_status omnirt_free_async(omnirt_backend* backend, void* ptr, omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_free_async";
  OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
  if (ptr == nullptr) return OMNIRT_STATUS_OK;
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  return call_slot<&V::free_async>(*backend, "free_async", ptr, stream);
}

omnirt_status omnirt_memcpy(omnirt_backend* backend, void* dst, const void* src, size_t size, int32_t kind) {
  constexpr const char* kCall = "omnirt_memcpy";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_buffer(dst, size, kCall, "dst"));
  OMNIRT_RETURN_IF_ERROR(require_buffer(src, size, kCall, "src"));
  OMNIRT_RETURN_IF_ERROR(require_memcpy_kind(kind, kCall));
  return call_slot<&V::memcpy_sync>(*backend, "memcpy_sync", dst, src, size, kind);
}

omnirt_status omnirt_memcpy_async(omnirt_backend* backend, void* dst, const void* src, size_t size,
                                  int32_t kind, omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_memcpy_async";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_buffer(dst, size, kCall, "dst"));
  OMNIRT_RETURN_IF_ERROR(require_buffer(src, size, kCall, "src"));
  OMNIRT_RETURN_IF_ERROR(require_memcpy_kind(kind, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  return call_slot<&V::memcpy_async>(*backend, "memcpy_async", dst, src, size, kind, stream);
}

omnirt_status omnirt_memset(omnirt_backend* backend, void* ptr, int32_t value, size_t size) {
  constexpr const char* kCall = "omnirt_memset";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_buffer(ptr, size, kCall, "ptr"));
  return call_slot<&V::memset_sync>(*backend, "memset_sync", ptr, value, size);
}

omnirt_status omnirt_memset_async(omnirt_backend* backend, void* ptr, int32_t value, size_t size,
                                  omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_memset_async";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_buffer(ptr, size, kCall, "ptr"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  return call_slot<&V::memset_async>(*backend, "memset_async", ptr, value, size, stream);
}

omnirt_status omnirt_mem_get_info(omnirt_backend* backend, int32_t device, size_t* free_bytes,
                                  size_t* total_bytes) {
  constexpr const char* kCall = "omnirt_mem_get_info";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(free_bytes, kCall, "free_bytes"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(total_bytes, kCall, "total_bytes"));
  OMNIRT_RETURN_IF_ERROR(require_device(*backend, device, kCall));
  return call_slot<&V::mem_get_info>(*backend, "mem_get_info", device, free_bytes, total_bytes);
}

omnirt_status omnirt_get_memory_stats(omnirt_backend* backend, int32_t device, omnirt_memory_stats* stats) {
  constexpr const char* kCall = "omnirt_get_memory_stats";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stats, kCall, "stats"));
  OMNIRT_RETURN_IF_ERROR(require_device(*backend, device, kCall));
  auto full = omnirt::sized_struct<omnirt_memory_stats>();
  OMNIRT_RETURN_IF_ERROR(call_slot<&V::memory_stats>(*backend, "memory_stats", device, &full));
  full.struct_size = sizeof full;
  full.known &= omnirt::stats_known_to(backend->abi_version);
  return omnirt::write_sized(stats, full, kCall, "omnirt_memory_stats");
}

omnirt_status omnirt_reset_memory_stats(omnirt_backend* backend, int32_t device) {
  constexpr const char* kCall = "omnirt_reset_memory_stats";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_device(*backend, device, kCall));
  return call_slot<&V::reset_memory_stats>(*backend, "reset_memory_stats", device);
}

omnirt_status omnirt_device_synchronize(omnirt_backend* backend, int32_t device) {
  constexpr const char* kCall = "omnirt_device_synchronize";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_device(*backend, device, kCall));
  return call_slot<&V::device_synchronize>(*backend, "device_synchronize", device);
}

// --- streams ------------------------------------------------------------

omnirt_status omnirt_stream_create(omnirt_backend* backend, int32_t device, omnirt_stream** stream) {
  constexpr const char* kCall = "omnirt_stream_create";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  *stream = nullptr;
  OMNIRT_RETURN_IF_ERROR(require_device(*backend, device, kCall));
  return call_slot<&V::stream_create>(*backend, "stream_create", device, stream);
}

omnirt_status omnirt_stream_destroy(omnirt_backend* backend, omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_stream_destroy";
  OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
  if (stream == nullptr) return OMNIRT_STATUS_OK;
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  return call_slot<&V::stream_destroy>(*backend, "stream_destroy", stream);
}

omnirt_status omnirt_stream_synchronize(omnirt_backend* backend, omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_stream_synchronize";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  return call_slot<&V::stream_synchronize>(*backend, "stream_synchronize", stream);
}

omnirt_status omnirt_stream_query(omnirt_backend* backend, omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_stream_query";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  return call_slot<&V::stream_query>(*backend, "stream_query", stream);
}

omnirt_status omnirt_stream_wait_event(omnirt_backend* backend, omnirt_stream* stream, omnirt_event* event) {
  constexpr const char* kCall = "omnirt_stream_wait_event";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(event, kCall, "event"));
  return call_slot<&V::stream_wait_event>(*backend, "stream_wait_event", stream, event);
}

omnirt_status omnirt_stream_get_default(omnirt_backend* backend, int32_t device, omnirt_stream** stream) {
  constexpr const char* kCall = "omnirt_stream_get_default";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  *stream = nullptr;
  OMNIRT_RETURN_IF_ERROR(require_device(*backend, device, kCall));
  return call_slot<&V::stream_get_default>(*backend, "stream_get_default", device, stream);
}

// --- events -------------------------------------------------------------

omnirt_status omnirt_event_create(omnirt_backend* backend, int32_t device, omnirt_event** event) {
  constexpr const char* kCall = "omnirt_event_create";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(event, kCall, "event"));
  *event = nullptr;
  OMNIRT_RETURN_IF_ERROR(require_device(*backend, device, kCall));
  return call_slot<&V::event_create>(*backend, "event_create", device, event);
}

omnirt_status omnirt_event_destroy(omnirt_backend* backend, omnirt_event* event) {
  constexpr const char* kCall = "omnirt_event_destroy";
  OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
  if (event == nullptr) return OMNIRT_STATUS_OK;
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  return call_slot<&V::event_destroy>(*backend, "event_destroy", event);
}

omnirt_status omnirt_event_record(omnirt_backend* backend, omnirt_event* event, omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_event_record";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(event, kCall, "event"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  return call_slot<&V::event_record>(*backend, "event_record", event, stream);
}

omnirt_status omnirt_event_query(omnirt_backend* backend, omnirt_event* event) {
  constexpr const char* kCall = "omnirt_event_query";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(event, kCall, "event"));
  return call_slot<&V::event_query>(*backend, "event_query", event);
}

omnirt_status omnirt_event_synchronize(omnirt_backend* backend, omnirt_event* event) {
  constexpr const char* kCall = "omnirt_event_synchronize";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(event, kCall, "event"));
  return call_slot<&V::event_synchronize>(*backend, "event_synchronize", event);
}

omnirt_status omnirt_event_elapsed_time(omnirt_backend* backend, omnirt_event* start, omnirt_event* end,
                                        float* milliseconds) {
  constexpr const char* kCall = "omnirt_event_elapsed_time";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(start, kCall, "start"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(end, kCall, "end"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(milliseconds, kCall, "milliseconds"));
  return call_slot<&V::event_elapsed_time>(*backend, "event_elapsed_time", start, end, milliseconds);
}

// --- graph capture ------------------------------------------------------

omnirt_status omnirt_stream_begin_capture(omnirt_backend* backend, omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_stream_begin_capture";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  return call_slot<&V::stream_begin_capture>(*backend, "stream_begin_capture", stream);
}

omnirt_status omnirt_stream_end_capture(omnirt_backend* backend, omnirt_stream* stream, omnirt_graph** graph) {
  constexpr const char* kCall = "omnirt_stream_end_capture";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(graph, kCall, "graph"));
  *graph = nullptr;
  return call_slot<&V::stream_end_capture>(*backend, "stream_end_capture", stream, graph);
}

omnirt_status omnirt_graph_launch(omnirt_backend* backend, omnirt_graph* graph, omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_graph_launch";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(graph, kCall, "graph"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(stream, kCall, "stream"));
  return call_slot<&V::graph_launch>(*backend, "graph_launch", graph, stream);
}

omnirt_status omnirt_graph_destroy(omnirt_backend* backend, omnirt_graph* graph) {
  constexpr const char* kCall = "omnirt_graph_destroy";
  OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
  if (graph == nullptr) return OMNIRT_STATUS_OK;
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  return call_slot<&V::graph_destroy>(*backend, "graph_destroy", graph);
}
