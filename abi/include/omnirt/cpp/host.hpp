// OmniRT — C++ wrapper of the embedder API (header-only, C++17).
//
// Move-only RAII owners over host.h: Host, DeviceBuffer, HostBuffer, Stream,
// Event, Graph, FileStore, Communicator; Backend is a non-owning view;
// CompletionTimer times work that a backend enqueues by its completion.
// Nothing here throws: every
// fallible method returns an omnirt_status, with the detail in
// omnirt::last_error() on the same thread. Methods that fill a sized struct
// set its struct_size themselves.
//
//   omnirt::Host host;
//   omnirt::Backend backend;
//   if (host.create() != OMNIRT_STATUS_OK || host.backend("auto", &backend) != OMNIRT_STATUS_OK) {
//     std::fprintf(stderr, "omnirt: %s\n", omnirt::last_error().message);
//   }
//   omnirt::DeviceBuffer buffer;
//   backend.malloc(0, 1 << 20, &buffer);
//   backend.memset(buffer.data(), 0, buffer.size());
//
// Lifetimes: a Backend is valid while its Host lives; buffers, streams,
// events, graphs and communicators must be destroyed before the Host that made
// their backend, and a FileStore after the communicators that met through it.
//
//   omnirt::FileStore store;                        // collectives, rank 0 of 2
//   omnirt::Communicator comm;
//   store.create("/tmp/job42");
//   backend.create_communicator(store, /*nranks=*/2, /*rank=*/0, /*device=*/0, &comm);
//   comm.all_reduce(data, data, count, OMNIRT_REDUCE_SUM);   // float* data: f32
// Thread-safety is that of the C API: any thread may use a Host, except that
// destroying it must not race with other calls on it.
#ifndef OMNIRT_CPP_HOST_HPP_
#define OMNIRT_CPP_HOST_HPP_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <optional>
#include <utility>

#include "omnirt/host.h"

namespace omnirt {

/// Detail of the last failed call on this thread.
inline const omnirt_error_info& last_error() noexcept { return *omnirt_last_error(); }

/// True when `t` is dense and row-major: strides NULL or those of its shape
/// (a dimension of one element may have any stride). What a call taking a
/// pointer and an element count (a collective, a flat copy) needs.
inline bool is_compact(const DLTensor& t) noexcept {
  if (t.strides == nullptr) return true;
  int64_t expected = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.strides[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

/// The run report's name of an omnirt_tier: "compile", "override", "eager"
/// ("unknown" for any other value).
inline const char* tier_name(int32_t tier) noexcept {
  switch (tier) {
    case OMNIRT_TIER_COMPILE: return "compile";
    case OMNIRT_TIER_OVERRIDE: return "override";
    case OMNIRT_TIER_EAGER: return "eager";
    default: return "unknown";
  }
}

/// The omnirt_dtype of a C++ element type: f32, f64, i8, i16, i32, i64, u8, bool.
template <class T>
constexpr int32_t dtype_of() noexcept {
  static_assert(sizeof(T) == 0, "no omnirt_dtype for this type (f16/bf16: pass the dtype)");
  return -1;
}
template <> constexpr int32_t dtype_of<float>() noexcept { return OMNIRT_DTYPE_F32; }
template <> constexpr int32_t dtype_of<double>() noexcept { return OMNIRT_DTYPE_F64; }
template <> constexpr int32_t dtype_of<int8_t>() noexcept { return OMNIRT_DTYPE_I8; }
template <> constexpr int32_t dtype_of<int16_t>() noexcept { return OMNIRT_DTYPE_I16; }
template <> constexpr int32_t dtype_of<int32_t>() noexcept { return OMNIRT_DTYPE_I32; }
template <> constexpr int32_t dtype_of<int64_t>() noexcept { return OMNIRT_DTYPE_I64; }
template <> constexpr int32_t dtype_of<uint8_t>() noexcept { return OMNIRT_DTYPE_U8; }
template <> constexpr int32_t dtype_of<bool>() noexcept { return OMNIRT_DTYPE_BOOL; }

namespace detail {

/// Releases a handle with a C destroy function of host.h.
template <class Handle, omnirt_status (*Destroy)(omnirt_backend*, Handle*)>
struct DestroyWith {
  omnirt_status operator()(omnirt_backend* backend, Handle* handle) const noexcept {
    return Destroy(backend, handle);
  }
};

/// Owns one handle made by a backend; releases it with `Release` when reset,
/// reassigned or destroyed. Move-only.
template <class Handle, class Release>
class Owned {
 public:
  Owned() noexcept = default;
  Owned(omnirt_backend* backend, Handle* handle, Release release = Release()) noexcept
      : backend_(backend), handle_(handle), release_(release) {}
  ~Owned() { reset(); }
  Owned(Owned&& other) noexcept
      : backend_(std::exchange(other.backend_, nullptr)),
        handle_(std::exchange(other.handle_, nullptr)),
        release_(other.release_) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      backend_ = std::exchange(other.backend_, nullptr);
      handle_ = std::exchange(other.handle_, nullptr);
      release_ = other.release_;
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;

  /// Releases the handle now; returns the release's status (OK when empty).
  omnirt_status reset() noexcept {
    if (handle_ == nullptr) return OMNIRT_STATUS_OK;
    const omnirt_status status = release_(backend_, handle_);
    backend_ = nullptr;
    handle_ = nullptr;
    return status;
  }
  /// Gives up ownership: the caller releases the handle.
  Handle* release() noexcept {
    backend_ = nullptr;
    return std::exchange(handle_, nullptr);
  }
  Handle* get() const noexcept { return handle_; }
  omnirt_backend* backend() const noexcept { return backend_; }
  explicit operator bool() const noexcept { return handle_ != nullptr; }

 protected:
  const Release& releaser() const noexcept { return release_; }

 private:
  omnirt_backend* backend_ = nullptr;
  Handle* handle_ = nullptr;
  Release release_;
};

/// Frees device memory of one device.
struct FreeDevice {
  int32_t device = 0;
  omnirt_status operator()(omnirt_backend* backend, void* ptr) const noexcept {
    return omnirt_free(backend, device, ptr);
  }
};

}  // namespace detail

/// Device memory from Backend::malloc, freed with omnirt_free.
class DeviceBuffer : public detail::Owned<void, detail::FreeDevice> {
 public:
  DeviceBuffer() noexcept = default;
  DeviceBuffer(omnirt_backend* backend, int32_t device, void* ptr, size_t size) noexcept
      : Owned(backend, ptr, detail::FreeDevice{device}), size_(size) {}
  void* data() const noexcept { return get(); }
  size_t size() const noexcept { return get() != nullptr ? size_ : 0; }
  int32_t device() const noexcept { return releaser().device; }

 private:
  size_t size_ = 0;
};

/// Pinned host memory from Backend::malloc_host, freed with omnirt_free_host.
class HostBuffer : public detail::Owned<void, detail::DestroyWith<void, &omnirt_free_host>> {
 public:
  HostBuffer() noexcept = default;
  HostBuffer(omnirt_backend* backend, void* ptr, size_t size) noexcept : Owned(backend, ptr), size_(size) {}
  void* data() const noexcept { return get(); }
  size_t size() const noexcept { return get() != nullptr ? size_ : 0; }

 private:
  size_t size_ = 0;
};

class Event;
class Graph;

/// A stream from Backend::create_stream, destroyed with omnirt_stream_destroy.
class Stream : public detail::Owned<omnirt_stream, detail::DestroyWith<omnirt_stream, &omnirt_stream_destroy>> {
 public:
  using Owned::Owned;
  omnirt_status synchronize() const noexcept { return omnirt_stream_synchronize(backend(), get()); }
  /// OK when idle, NOT_READY while work is pending.
  omnirt_status query() const noexcept { return omnirt_stream_query(backend(), get()); }
  /// Later work on this stream waits for `event`.
  inline omnirt_status wait(const Event& event) const noexcept;
  omnirt_status memcpy_async(void* dst, const void* src, size_t size, int32_t kind) const noexcept {
    return omnirt_memcpy_async(backend(), dst, src, size, kind, get());
  }
  omnirt_status memset_async(void* ptr, int32_t value, size_t size) const noexcept {
    return omnirt_memset_async(backend(), ptr, value, size, get());
  }
  omnirt_status begin_capture() const noexcept { return omnirt_stream_begin_capture(backend(), get()); }
  /// Ends a capture; *out owns the captured graph.
  inline omnirt_status end_capture(Graph* out) const noexcept;
};

/// An event from Backend::create_event, destroyed with omnirt_event_destroy.
class Event : public detail::Owned<omnirt_event, detail::DestroyWith<omnirt_event, &omnirt_event_destroy>> {
 public:
  using Owned::Owned;
  omnirt_status record(const Stream& stream) const noexcept {
    return omnirt_event_record(backend(), get(), stream.get());
  }
  /// OK when complete, NOT_READY otherwise.
  omnirt_status query() const noexcept { return omnirt_event_query(backend(), get()); }
  omnirt_status synchronize() const noexcept { return omnirt_event_synchronize(backend(), get()); }
  /// Milliseconds from this event to `end`, both complete.
  omnirt_status elapsed_ms(const Event& end, float* milliseconds) const noexcept {
    return omnirt_event_elapsed_time(backend(), get(), end.get(), milliseconds);
  }
};

/// A captured graph from Stream::end_capture, destroyed with omnirt_graph_destroy.
class Graph : public detail::Owned<omnirt_graph, detail::DestroyWith<omnirt_graph, &omnirt_graph_destroy>> {
 public:
  using Owned::Owned;
  omnirt_status launch(const Stream& stream) const noexcept {
    return omnirt_graph_launch(backend(), get(), stream.get());
  }
};

/// The host's file-backed key-value store (omnirt_file_store_create) for
/// ranks on one machine or a shared filesystem. Move-only; must outlive the
/// communicators that met through it.
class FileStore {
 public:
  FileStore() noexcept = default;
  ~FileStore() { omnirt_file_store_destroy(store_); }
  FileStore(FileStore&& other) noexcept : store_(std::exchange(other.store_, nullptr)) {}
  FileStore& operator=(FileStore&& other) noexcept {
    if (this != &other) {
      omnirt_file_store_destroy(store_);
      store_ = std::exchange(other.store_, nullptr);
    }
    return *this;
  }
  FileStore(const FileStore&) = delete;
  FileStore& operator=(const FileStore&) = delete;

  /// Opens a store on `directory` (created with mode 0700 when missing),
  /// destroying any store held before.
  omnirt_status create(const char* directory) noexcept {
    omnirt_file_store_destroy(std::exchange(store_, nullptr));
    return omnirt_file_store_create(directory, &store_);
  }
  const omnirt_kv_store* get() const noexcept { return store_; }
  explicit operator bool() const noexcept { return store_ != nullptr; }

 private:
  omnirt_kv_store* store_ = nullptr;
};

/// One rank's communicator, from Backend::create_communicator or
/// create_local_communicators; destroyed (after its enqueued work) with
/// omnirt_comm_destroy. `stream` arguments default to NULL, the device's
/// default stream; the typed overloads take the dtype from T (dtype_of).
class Communicator : public detail::Owned<omnirt_comm, detail::DestroyWith<omnirt_comm, &omnirt_comm_destroy>> {
 public:
  using Owned::Owned;

  omnirt_status all_reduce(const void* send, void* recv, size_t count, int32_t dtype, int32_t op,
                           omnirt_stream* stream = nullptr) const noexcept {
    return omnirt_all_reduce(backend(), get(), send, recv, count, dtype, op, stream);
  }
  template <class T>
  omnirt_status all_reduce(const T* send, T* recv, size_t count, int32_t op,
                           omnirt_stream* stream = nullptr) const noexcept {
    return all_reduce(send, recv, count, dtype_of<T>(), op, stream);
  }
  omnirt_status all_gather(const void* send, void* recv, size_t send_count, int32_t dtype,
                           omnirt_stream* stream = nullptr) const noexcept {
    return omnirt_all_gather(backend(), get(), send, recv, send_count, dtype, stream);
  }
  omnirt_status reduce_scatter(const void* send, void* recv, size_t recv_count, int32_t dtype, int32_t op,
                               omnirt_stream* stream = nullptr) const noexcept {
    return omnirt_reduce_scatter(backend(), get(), send, recv, recv_count, dtype, op, stream);
  }
  omnirt_status broadcast(const void* send, void* recv, size_t count, int32_t dtype, int32_t root,
                          omnirt_stream* stream = nullptr) const noexcept {
    return omnirt_broadcast(backend(), get(), send, recv, count, dtype, root, stream);
  }
  omnirt_status send(const void* buffer, size_t count, int32_t dtype, int32_t peer,
                     omnirt_stream* stream = nullptr) const noexcept {
    return omnirt_send(backend(), get(), buffer, count, dtype, peer, stream);
  }
  omnirt_status recv(void* buffer, size_t count, int32_t dtype, int32_t peer,
                     omnirt_stream* stream = nullptr) const noexcept {
    return omnirt_recv(backend(), get(), buffer, count, dtype, peer, stream);
  }
  /// OK while healthy; else the failure that broke it (see omnirt_comm_get_async_error).
  omnirt_status async_error() const noexcept { return omnirt_comm_get_async_error(backend(), get()); }
};

inline omnirt_status Stream::wait(const Event& event) const noexcept {
  return omnirt_stream_wait_event(backend(), get(), event.get());
}

inline omnirt_status Stream::end_capture(Graph* out) const noexcept {
  omnirt_graph* graph = nullptr;
  const omnirt_status status = omnirt_stream_end_capture(backend(), get(), &graph);
  if (status == OMNIRT_STATUS_OK) *out = Graph(backend(), graph);
  return status;
}

/// A backend of a Host: a non-owning view, valid while the Host lives.
class Backend {
 public:
  Backend() noexcept = default;
  explicit Backend(omnirt_backend* backend) noexcept : backend_(backend) {}
  omnirt_backend* get() const noexcept { return backend_; }
  explicit operator bool() const noexcept { return backend_ != nullptr; }

  omnirt_status info(omnirt_backend_info* out) const noexcept {
    out->struct_size = sizeof *out;
    return omnirt_backend_get_info(backend_, out);
  }
  omnirt_status capabilities(omnirt_capabilities* out) const noexcept {
    out->struct_size = sizeof *out;
    return omnirt_get_capabilities(backend_, out);
  }
  omnirt_status device_count(int32_t* count) const noexcept { return omnirt_get_device_count(backend_, count); }
  omnirt_status device_info(int32_t device, omnirt_device_info* out) const noexcept {
    out->struct_size = sizeof *out;
    return omnirt_get_device_info(backend_, device, out);
  }

  /// Allocates device memory; *out owns it.
  omnirt_status malloc(int32_t device, size_t size, DeviceBuffer* out) const noexcept {
    void* ptr = nullptr;
    const omnirt_status status = omnirt_malloc(backend_, device, size, &ptr);
    if (status == OMNIRT_STATUS_OK) *out = DeviceBuffer(backend_, device, ptr, size);
    return status;
  }
  /// Allocates pinned host memory; *out owns it.
  omnirt_status malloc_host(size_t size, HostBuffer* out) const noexcept {
    void* ptr = nullptr;
    const omnirt_status status = omnirt_malloc_host(backend_, size, &ptr);
    if (status == OMNIRT_STATUS_OK) *out = HostBuffer(backend_, ptr, size);
    return status;
  }
  omnirt_status memcpy(void* dst, const void* src, size_t size, int32_t kind) const noexcept {
    return omnirt_memcpy(backend_, dst, src, size, kind);
  }
  omnirt_status memset(void* ptr, int32_t value, size_t size) const noexcept {
    return omnirt_memset(backend_, ptr, value, size);
  }
  omnirt_status mem_get_info(int32_t device, size_t* free_bytes, size_t* total_bytes) const noexcept {
    return omnirt_mem_get_info(backend_, device, free_bytes, total_bytes);
  }
  omnirt_status memory_stats(int32_t device, omnirt_memory_stats* out) const noexcept {
    out->struct_size = sizeof *out;
    return omnirt_get_memory_stats(backend_, device, out);
  }
  omnirt_status reset_memory_stats(int32_t device) const noexcept {
    return omnirt_reset_memory_stats(backend_, device);
  }
  omnirt_status synchronize(int32_t device) const noexcept { return omnirt_device_synchronize(backend_, device); }

  /// Creates a stream on `device`; *out owns it.
  omnirt_status create_stream(int32_t device, Stream* out) const noexcept {
    omnirt_stream* stream = nullptr;
    const omnirt_status status = omnirt_stream_create(backend_, device, &stream);
    if (status == OMNIRT_STATUS_OK) *out = Stream(backend_, stream);
    return status;
  }
  /// Creates an event on `device`; *out owns it.
  omnirt_status create_event(int32_t device, Event* out) const noexcept {
    omnirt_event* event = nullptr;
    const omnirt_status status = omnirt_event_create(backend_, device, &event);
    if (status == OMNIRT_STATUS_OK) *out = Event(backend_, event);
    return status;
  }

  /// Joins rank `rank` of `nranks` on `device`, meeting the others through
  /// `store` under `key_prefix`; *out owns the communicator. `timeout_ms` 0:
  /// 60 s (omnirt_comm_create_args).
  omnirt_status create_communicator(const FileStore& store, int32_t nranks, int32_t rank, int32_t device,
                                    Communicator* out, uint32_t timeout_ms = 0,
                                    const char* key_prefix = "") const noexcept {
    omnirt_comm_create_args args{};
    args.struct_size = sizeof args;
    args.nranks = nranks;
    args.rank = rank;
    args.device = device;
    args.timeout_ms = timeout_ms;
    args.store = store.get();
    args.key_prefix = key_prefix;
    omnirt_comm* comm = nullptr;
    const omnirt_status status = omnirt_comm_create(backend_, &args, &comm);
    if (status == OMNIRT_STATUS_OK) *out = Communicator(backend_, comm);
    return status;
  }
  /// One rank per device of this process (omnirt_comm_create_local): rank i
  /// on devices[i], owned by out[i] (`out` holds num_devices communicators).
  omnirt_status create_local_communicators(const int32_t* devices, size_t num_devices,
                                           Communicator* out) const noexcept {
    std::unique_ptr<omnirt_comm*[]> comms(new (std::nothrow) omnirt_comm*[num_devices + 1]());
    if (comms == nullptr) return OMNIRT_STATUS_OUT_OF_MEMORY;
    const omnirt_status status = omnirt_comm_create_local(backend_, devices, num_devices, comms.get());
    if (status != OMNIRT_STATUS_OK) return status;
    for (size_t i = 0; i < num_devices; ++i) out[i] = Communicator(backend_, comms[i]);
    return status;
  }
  /// Runs `issue` (which returns an omnirt_status) between group_start and
  /// group_end: the collectives it issues on this thread launch together.
  /// Returns the first failure of the three.
  template <class Issue>
  omnirt_status group(Issue&& issue) const noexcept {
    omnirt_status status = omnirt_group_start(backend_);
    if (status != OMNIRT_STATUS_OK) return status;
    const omnirt_status issued = issue();
    status = omnirt_group_end(backend_);
    return issued != OMNIRT_STATUS_OK ? issued : status;
  }
  /// The collective library and its version, NUL-terminated into `text`.
  omnirt_status collectives_library(char* text, size_t capacity) const noexcept {
    return omnirt_collectives_library(backend_, text, capacity);
  }

 private:
  omnirt_backend* backend_ = nullptr;
};

/// What CompletionTimer::end measured.
struct CompletedTime {
  /// Host wall time (steady clock) from CompletionTimer::begin() until the
  /// work had completed, in milliseconds: launch and device time together.
  double wall_ms = 0;
  /// Device time between events recorded on the work's stream before and
  /// after it, in milliseconds. Empty when not asked for, when the backend
  /// cannot time events (no OMNIRT_FEATURE_EVENT_TIMING), or when the work's
  /// stream has no handle (NULL on a backend without
  /// OMNIRT_FEATURE_DEFAULT_STREAM, such as every ABI 1.0 plugin).
  std::optional<double> device_ms;
};

/// Times work a backend enqueues on a stream (module runs, named ops, async
/// copies, which may return before the device finishes) by its completion,
/// not by its launch. One implementation for every embedder, omnirt-run, the
/// run report and the benchmarks:
///
///   omnirt::CompletionTimer timer;
///   timer.init(backend, device);         // once: capabilities, default stream, events
///   timer.begin(stream);                 // NULL: the device's default stream
///   omnirt_module_run(module, ..., stream, ...);
///   omnirt::CompletedTime t;
///   timer.end(&t);                       // waits; t.wall_ms, t.device_ms
///
/// end() waits, best first: for an event recorded after the work (when device
/// time is measured), for the stream (omnirt_stream_synchronize; for NULL, on
/// the handle omnirt_stream_get_default gives), or, when the stream has no
/// handle, for the whole device (omnirt_device_synchronize: all its streams).
/// A timer serves one thread at a time; it owns its events, so destroy it
/// before the host. Move-only. Every method returns the failing call's status
/// (detail in omnirt::last_error()).
class CompletionTimer {
 public:
  /// How end() waits for the work.
  enum class Wait { kEvent, kStream, kDevice };

  /// Prepares to time work on `device` of `backend`. With `device_time` and a
  /// backend that times events (EVENTS and EVENT_TIMING), makes the two
  /// events it records around the work; without, end() only waits and
  /// measures wall time (as benchmarks that time iterations themselves want).
  omnirt_status init(omnirt_backend* backend, int32_t device, bool device_time = true) noexcept {
    *this = CompletionTimer();
    omnirt_capabilities caps{};
    caps.struct_size = sizeof caps;
    omnirt_status status = omnirt_get_capabilities(backend, &caps);
    if (status != OMNIRT_STATUS_OK) return status;
    backend_ = backend;
    device_ = device;
    has_streams_ = (caps.features & OMNIRT_FEATURE_STREAMS) != 0;
    if ((caps.features & OMNIRT_FEATURE_DEFAULT_STREAM) != 0) {
      status = omnirt_stream_get_default(backend, device, &default_stream_);
      if (status != OMNIRT_STATUS_OK) return status;
    }
    constexpr uint64_t kTiming = OMNIRT_FEATURE_EVENTS | OMNIRT_FEATURE_EVENT_TIMING;
    if (device_time && (caps.features & kTiming) == kTiming) {
      const Backend view(backend);
      status = view.create_event(device, &start_);
      if (status == OMNIRT_STATUS_OK) status = view.create_event(device, &end_);
    }
    return status;
  }

  /// Marks the start of work about to be enqueued on `stream` (NULL: the
  /// device's default stream): records the start event there, then reads the
  /// clock.
  omnirt_status begin(omnirt_stream* stream = nullptr) noexcept {
    stream_ = stream != nullptr ? stream : default_stream_;
    if (stream_ == nullptr) {
      wait_ = Wait::kDevice;
    } else if (end_) {
      wait_ = Wait::kEvent;
    } else {
      wait_ = has_streams_ ? Wait::kStream : Wait::kDevice;
    }
    if (wait_ == Wait::kEvent) {
      const omnirt_status status = omnirt_event_record(backend_, start_.get(), stream_);
      if (status != OMNIRT_STATUS_OK) return status;
    }
    started_ = Clock::now();
    return OMNIRT_STATUS_OK;
  }

  /// Waits until the work enqueued on the stream since begin() has completed
  /// and writes its times to *out.
  omnirt_status end(CompletedTime* out) noexcept {
    omnirt_status status = OMNIRT_STATUS_OK;
    switch (wait_) {
      case Wait::kEvent:
        status = omnirt_event_record(backend_, end_.get(), stream_);
        if (status == OMNIRT_STATUS_OK) status = omnirt_event_synchronize(backend_, end_.get());
        break;
      case Wait::kStream:
        status = omnirt_stream_synchronize(backend_, stream_);
        break;
      case Wait::kDevice:
        status = omnirt_device_synchronize(backend_, device_);
        break;
    }
    const Clock::time_point done = Clock::now();
    if (status != OMNIRT_STATUS_OK) return status;
    out->wall_ms = std::chrono::duration<double, std::milli>(done - started_).count();
    out->device_ms.reset();
    if (wait_ == Wait::kEvent) {
      float milliseconds = 0;
      status = omnirt_event_elapsed_time(backend_, start_.get(), end_.get(), &milliseconds);
      if (status != OMNIRT_STATUS_OK) return status;
      out->device_ms = milliseconds;
    }
    return OMNIRT_STATUS_OK;
  }

  /// How the last begin() chose to wait.
  Wait waits_by() const noexcept { return wait_; }

 private:
  using Clock = std::chrono::steady_clock;
  omnirt_backend* backend_ = nullptr;
  int32_t device_ = 0;
  bool has_streams_ = false;
  omnirt_stream* default_stream_ = nullptr;  // the backend's; never destroyed here
  Event start_, end_;                        // only when measuring device time
  omnirt_stream* stream_ = nullptr;          // of the work since begin()
  Wait wait_ = Wait::kDevice;
  Clock::time_point started_{};
};

/// A host: owns an omnirt_host and, through it, the loaded backends. Move-only.
class Host {
 public:
  Host() noexcept = default;
  ~Host() { omnirt_host_destroy(host_); }
  Host(Host&& other) noexcept : host_(std::exchange(other.host_, nullptr)) {}
  Host& operator=(Host&& other) noexcept {
    if (this != &other) {
      omnirt_host_destroy(host_);
      host_ = std::exchange(other.host_, nullptr);
    }
    return *this;
  }
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  /// Creates a host (see omnirt_host_create), destroying any host held
  /// before. `options` may be NULL (defaults).
  omnirt_status create(const omnirt_host_options* options = nullptr) noexcept {
    omnirt_host_destroy(std::exchange(host_, nullptr));
    return omnirt_host_create(options, &host_);
  }
  /// Creates a host searching `plugin_paths` first, with OMNIRT_HOST_* `flags`
  /// and an optional configuration file.
  omnirt_status create(std::initializer_list<const char*> plugin_paths, uint32_t flags = 0,
                       const char* config_path = nullptr) noexcept {
    omnirt_host_options options{};
    options.struct_size = sizeof options;
    options.config_path = config_path;
    options.plugin_paths = plugin_paths.begin();
    options.num_plugin_paths = plugin_paths.size();
    options.flags = flags;
    return create(&options);
  }

  /// Selects a backend: "auto" or NULL for the first available, else by name.
  omnirt_status backend(const char* name, Backend* out) const noexcept {
    omnirt_backend* backend = nullptr;
    const omnirt_status status = omnirt_host_get_backend(host_, name, &backend);
    *out = Backend(backend);
    return status;
  }
  size_t backend_count() const noexcept { return omnirt_host_backend_count(host_); }
  omnirt_status backend_at(size_t index, Backend* out) const noexcept {
    omnirt_backend* backend = nullptr;
    const omnirt_status status = omnirt_host_backend_at(host_, index, &backend);
    *out = Backend(backend);
    return status;
  }
  size_t candidate_count() const noexcept { return omnirt_host_candidate_count(host_); }
  omnirt_status candidate(size_t index, omnirt_candidate* out) const noexcept {
    out->struct_size = sizeof *out;
    return omnirt_host_get_candidate(host_, index, out);
  }
  size_t search_dir_count() const noexcept { return omnirt_host_search_dir_count(host_); }
  omnirt_status search_dir(size_t index, omnirt_search_dir* out) const noexcept {
    out->struct_size = sizeof *out;
    return omnirt_host_get_search_dir(host_, index, out);
  }

  omnirt_host* get() const noexcept { return host_; }
  explicit operator bool() const noexcept { return host_ != nullptr; }

 private:
  omnirt_host* host_ = nullptr;
};

}  // namespace omnirt

#endif  // OMNIRT_CPP_HOST_HPP_
