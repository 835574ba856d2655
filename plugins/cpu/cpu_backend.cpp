#include "cpu_backend.h"

#include <dlpack/dlpack.h>

#include <cstring>
#include <string>
#include <utility>

namespace omnirt::cpu {
namespace {

constexpr uint64_t kFeatures =
    OMNIRT_FEATURE_HOST_ALLOC | OMNIRT_FEATURE_ASYNC_COPY | OMNIRT_FEATURE_STREAM_ORDERED_ALLOC |
    OMNIRT_FEATURE_STREAMS | OMNIRT_FEATURE_EVENTS | OMNIRT_FEATURE_EVENT_TIMING |
    OMNIRT_FEATURE_STREAM_WAIT_EVENT | OMNIRT_FEATURE_MEM_INFO | OMNIRT_FEATURE_MEMORY_STATS |
    OMNIRT_FEATURE_GRAPH_CAPTURE | OMNIRT_FEATURE_DEFAULT_STREAM;

constexpr uint64_t kAllDtypes = (uint64_t{1} << OMNIRT_DTYPE_COUNT_1_0) - 1;

void check_copy(const void* dst, const void* src, size_t size, int32_t kind) {
  if (kind < OMNIRT_MEMCPY_HOST_TO_HOST || kind > OMNIRT_MEMCPY_DEVICE_TO_DEVICE) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 "cpu: memcpy kind " + std::to_string(kind) + " is not an omnirt_memcpy_kind");
  }
  if (size > 0 && (dst == nullptr || src == nullptr)) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 std::string("cpu: memcpy of ") + std::to_string(size) + " bytes with a NULL " +
                     (dst == nullptr ? "dst" : "src"));
  }
}

void check_set(const void* ptr, size_t size) {
  if (size > 0 && ptr == nullptr) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 "cpu: memset of " + std::to_string(size) + " bytes with a NULL ptr");
  }
}

// Every kind is host memory to host memory here. memmove, because a caller's
// overlapping ranges must not turn into undefined behaviour inside the plugin.
void copy(void* dst, const void* src, size_t size) {
  if (size > 0) std::memmove(dst, src, size);
}

void set(void* ptr, int32_t value, size_t size) {
  if (size > 0) std::memset(ptr, static_cast<unsigned char>(value), size);
}

void refuse_while_capturing(const CpuStream& stream, const char* call) {
  if (stream.capturing()) {
    plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED,
                 std::string("cpu: ") + call + " on a capturing stream is not supported");
  }
}

}  // namespace

CpuBackend::CpuBackend()
    : CpuBackend(omnirt_backend_create_args{sizeof(omnirt_backend_create_args), nullptr, nullptr, 0}) {}

CpuBackend::CpuBackend(const omnirt_backend_create_args& args)
    : allocator_(CpuDevice::physical_memory_bytes()),
      default_stream_(std::make_shared<CpuStream>()),
      collectives_(plugin::Options(args), default_stream_),
      modules_(plugin::Options(args), allocator_.ledger()) {
  plugin::Options(args).check_keys("cpu", {"threads", "gloo_hostname"});
}

plugin::Availability CpuBackend::is_available() { return {true, {}}; }

void CpuBackend::capabilities(omnirt_capabilities& caps) {
  caps.dl_device_type = kDLCPU;
  caps.device_count = CpuDevice::kCount;
  caps.features = kFeatures | OMNIRT_FEATURE_NAMED_OPS;
  modules_.describe(caps);
  collectives_.describe(caps);
  caps.dtypes = kAllDtypes;
  caps.vendor = "cpu";
}

int32_t CpuBackend::device_count() { return CpuDevice::kCount; }

void CpuBackend::device_info(int32_t device, omnirt_device_info& info) {
  CpuDevice::check_index(device);
  device_.info(info);
}

void* CpuBackend::malloc_device(int32_t device, size_t size) {
  CpuDevice::check_index(device);
  return allocator_.allocate(size, MemoryKind::kDevice);
}

void CpuBackend::free_device(int32_t device, void* ptr) {
  CpuDevice::check_index(device);
  allocator_.release(ptr, MemoryKind::kDevice);
}

void* CpuBackend::malloc_host(size_t size) {
  return allocator_.allocate(size, MemoryKind::kPinnedHost);
}

void CpuBackend::free_host(void* ptr) { allocator_.release(ptr, MemoryKind::kPinnedHost); }

// The block exists as soon as this returns, before any later work on the
// stream, which is all stream order asks of an allocation.
void* CpuBackend::malloc_async(size_t size, omnirt_stream* stream) {
  refuse_while_capturing(*resolve_stream(stream), "malloc_async");
  return allocator_.allocate(size, MemoryKind::kDevice);
}

void CpuBackend::free_async(void* ptr, omnirt_stream* stream) {
  const auto target = resolve_stream(stream);
  refuse_while_capturing(*target, "free_async");
  if (ptr == nullptr) return;
  allocator_.begin_release(ptr, MemoryKind::kDevice);
  target->submit_task([this, ptr] { allocator_.finish_release(ptr); });
}

void CpuBackend::memcpy_sync(void* dst, const void* src, size_t size, int32_t kind) {
  check_copy(dst, src, size, kind);
  default_stream_->synchronize();
  copy(dst, src, size);
}

void CpuBackend::memset_sync(void* ptr, int32_t value, size_t size) {
  check_set(ptr, size);
  default_stream_->synchronize();
  set(ptr, value, size);
}

void CpuBackend::memcpy_async(void* dst, const void* src, size_t size, int32_t kind,
                              omnirt_stream* stream) {
  check_copy(dst, src, size, kind);
  resolve_stream(stream)->submit_task([dst, src, size] { copy(dst, src, size); });
}

void CpuBackend::memset_async(void* ptr, int32_t value, size_t size, omnirt_stream* stream) {
  check_set(ptr, size);
  resolve_stream(stream)->submit_task([ptr, value, size] { set(ptr, value, size); });
}

void CpuBackend::mem_get_info(int32_t device, size_t& free_bytes, size_t& total_bytes) {
  CpuDevice::check_index(device);
  CpuDevice::memory_info(free_bytes, total_bytes);
}

void CpuBackend::memory_stats(int32_t device, omnirt_memory_stats& stats) {
  CpuDevice::check_index(device);
  allocator_.stats(stats);
  modules_.describe_memory(stats);
}

void CpuBackend::reset_memory_stats(int32_t device) {
  CpuDevice::check_index(device);
  allocator_.reset_stats();
}

void CpuBackend::device_synchronize(int32_t device) {
  CpuDevice::check_index(device);
  default_stream_->synchronize();
  for (const auto& stream : streams_.all()) stream->synchronize();
}

omnirt_stream* CpuBackend::stream_create(int32_t device) {
  CpuDevice::check_index(device);
  return streams_.add(std::make_shared<CpuStream>());
}

void CpuBackend::stream_destroy(omnirt_stream* stream) {
  if (stream == nullptr) return;
  if (stream == default_handle()) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 "cpu: stream_destroy: the default stream (from stream_get_default) belongs to the "
                 "backend and cannot be destroyed");
  }
  // Drain here, even if a racing call still holds the stream and so becomes
  // the one that finally deletes it.
  streams_.remove(stream)->synchronize();
}

void CpuBackend::stream_synchronize(omnirt_stream* stream) { resolve_stream(stream)->synchronize(); }

bool CpuBackend::stream_query(omnirt_stream* stream) { return resolve_stream(stream)->idle(); }

void CpuBackend::stream_wait_event(omnirt_stream* stream, omnirt_event* event) {
  const auto target = resolve_stream(stream);
  // The wait is for the event's latest record as of the call (as of launch,
  // for a captured wait); an event never recorded is no wait at all.
  target->submit([awaited = events_.find(event)](CpuStream& s) {
    auto marker = awaited->latest();
    if (marker != nullptr && !marker->done()) s.enqueue([marker] { marker->wait(); });
  });
}

omnirt_stream* CpuBackend::stream_get_default(int32_t device) {
  CpuDevice::check_index(device);
  return default_handle();
}

omnirt_event* CpuBackend::event_create(int32_t device) {
  CpuDevice::check_index(device);
  return events_.add(std::make_shared<CpuEvent>());
}

void CpuBackend::event_destroy(omnirt_event* event) {
  if (event != nullptr) events_.remove(event);
}

void CpuBackend::event_record(omnirt_event* event, omnirt_stream* stream) {
  const auto target = resolve_stream(stream);
  target->submit([recorded = events_.find(event)](CpuStream& s) {
    s.enqueue_marker(recorded->record());
  });
}

bool CpuBackend::event_query(omnirt_event* event) { return events_.find(event)->query(); }

void CpuBackend::event_synchronize(omnirt_event* event) { events_.find(event)->synchronize(); }

float CpuBackend::event_elapsed_time(omnirt_event* start, omnirt_event* end) {
  return elapsed_milliseconds(*events_.find(start), *events_.find(end));
}

void CpuBackend::stream_begin_capture(omnirt_stream* stream) {
  if (is_default(stream)) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 "cpu: the default stream cannot be captured; capture a created stream");
  }
  streams_.find(stream)->begin_capture();
}

omnirt_graph* CpuBackend::stream_end_capture(omnirt_stream* stream) {
  if (is_default(stream)) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, "cpu: the default stream is never capturing");
  }
  return graphs_.add(std::make_shared<CpuGraph>(streams_.find(stream)->end_capture()));
}

void CpuBackend::graph_launch(omnirt_graph* graph, omnirt_stream* stream) {
  const auto target = resolve_stream(stream);
  graphs_.find(graph)->launch(*target);
}

void CpuBackend::graph_destroy(omnirt_graph* graph) {
  if (graph != nullptr) graphs_.remove(graph);
}

std::shared_ptr<CpuStream> CpuBackend::resolve_stream(omnirt_stream* stream) const {
  return is_default(stream) ? default_stream_ : streams_.find(stream);
}

}  // namespace omnirt::cpu

OMNIRT_DEFINE_BACKEND(omnirt::cpu::CpuBackend, "cpu", OMNIRT_BACKEND_VERSION)
