// OmniRT — C++ helper for plugin authors (header-only, C++17).
//
// Write a class with the methods your backend supports and name it in
// OMNIRT_DEFINE_BACKEND. The helper builds the C vtable from it:
//   - each slot is a static noexcept trampoline that calls your method and
//     turns every exception into a status (omnirt::plugin::Error keeps its
//     status and native code; std::bad_alloc becomes OUT_OF_MEMORY; anything
//     else INTERNAL), recording the message with the host;
//   - an optional slot whose method your class lacks stays NULL, so the host
//     answers NOT_SUPPORTED without calling you;
//   - a required slot whose method your class lacks answers NOT_SUPPORTED.
// Methods may return omnirt_status instead of void where the slot has no
// result value. See plugins/template/ for a complete, minimal backend.
//
// The class must be constructible from `const omnirt_backend_create_args&`
// or default-constructible, and thread-safe: the host calls it from any thread.
#ifndef OMNIRT_CPP_PLUGIN_HPP_
#define OMNIRT_CPP_PLUGIN_HPP_

#include <cstdint>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

#include "omnirt/backend.h"
#include "omnirt/cpp/utf8.hpp"

namespace omnirt::plugin {

/// An error with an OmniRT status, a message and the vendor's native code.
class Error : public std::exception {
 public:
  Error(omnirt_status status, std::string message, int64_t native_code = 0)
      : status_(status), native_code_(native_code), message_(std::move(message)) {}
  omnirt_status status() const noexcept { return status_; }
  int64_t native_code() const noexcept { return native_code_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  omnirt_status status_;
  int64_t native_code_;
  std::string message_;
};

/// Throws an Error; for use inside backend methods.
[[noreturn]] inline void fail(omnirt_status status, std::string message,
                              int64_t native_code = 0) {
  throw Error(status, std::move(message), native_code);
}

/// Answer of a backend's is_available().
struct Availability {
  bool available = false;
  std::string reason;  ///< Why not, when !available.
};

/// Per-backend options from the host's configuration, read by key.
class Options {
 public:
  explicit Options(const omnirt_backend_create_args& args) : args_(args) {}
  /// The value for `key`, or `fallback` when absent.
  std::string get(const char* key, std::string fallback = {}) const {
    for (size_t i = 0; i < args_.num_options; ++i) {
      if (std::strcmp(args_.option_keys[i], key) == 0) return args_.option_values[i];
    }
    return fallback;
  }
  /// Throws INVALID_ARGUMENT naming the first key that is not in `known`, and
  /// the known ones: a misspelt key fails create instead of being ignored.
  /// `backend` names the backend in the message. Call it in the constructor.
  void check_keys(const char* backend, std::initializer_list<const char*> known) const {
    for (size_t i = 0; i < args_.num_options; ++i) {
      bool found = false;
      for (const char* key : known) found = found || std::strcmp(args_.option_keys[i], key) == 0;
      if (found) continue;
      std::string list;
      for (const char* key : known) list += (list.empty() ? "" : ", ") + std::string(key);
      throw Error(OMNIRT_STATUS_INVALID_ARGUMENT,
                  std::string(backend) + ": unknown option '" + args_.option_keys[i] +
                      "' (known options: " + (list.empty() ? "none" : list) + ")");
    }
  }

 private:
  const omnirt_backend_create_args& args_;
};

namespace detail {

struct PluginGlobals {
  const omnirt_host_services* host = nullptr;
  const char* name = "";
};
// One per plugin .so: visibility is hidden, so each plugin has its own copy.
inline PluginGlobals& globals() {
  static PluginGlobals g;
  return g;
}

inline omnirt_status report(omnirt_status status, int64_t native,
                            const char* message) noexcept {
  const omnirt_host_services* host = globals().host;
  if (host != nullptr && host->set_error != nullptr) {
    return host->set_error(status, native, message);
  }
  return status;
}

// Runs `f`, converting its result or exception into a status. Inlined into
// each trampoline: a call per slot costs about as much as the hottest slots'
// whole work (an alloc+free served from a cache).
#if defined(__GNUC__)
#define OMNIRT_PLUGIN_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define OMNIRT_PLUGIN_ALWAYS_INLINE inline
#endif
template <class F>
OMNIRT_PLUGIN_ALWAYS_INLINE omnirt_status guard(F&& f) noexcept {
  try {
    using R = decltype(f());
    // `cond ? OMNIRT_STATUS_OK : OMNIRT_STATUS_NOT_READY` has the enum's type.
    if constexpr (std::is_same_v<R, omnirt_status> || std::is_same_v<R, omnirt_status_code>) {
      return f();
    } else {
      f();
      return OMNIRT_STATUS_OK;
    }
  } catch (const Error& e) {
    return report(e.status(), e.native_code(), e.what());
  } catch (const std::bad_alloc&) {
    return report(OMNIRT_STATUS_OUT_OF_MEMORY, 0, "out of host memory");
  } catch (const std::exception& e) {
    return report(OMNIRT_STATUS_INTERNAL, 0, e.what());
  } catch (...) {
    return report(OMNIRT_STATUS_INTERNAL, 0, "unknown exception in plugin");
  }
}

// Copies a full local struct into a caller's sized struct, keeping the
// caller's struct_size and writing no byte past it.
template <class T>
void copy_sized(T* dst, const T& src) noexcept {
  const size_t caller_size = dst->struct_size;
  const size_t n = caller_size < sizeof(T) ? caller_size : sizeof(T);
  std::memcpy(static_cast<void*>(dst), &src, n);
  dst->struct_size = caller_size;
}

// Text copied into the host's buffers (a reason, the collective library) is
// cut on a UTF-8 character boundary when it does not fit.
using omnirt::utf8::copy_text;

template <class T>
T sized() noexcept {
  T value;
  std::memset(static_cast<void*>(&value), 0, sizeof(T));
  value.struct_size = sizeof(T);
  return value;
}

template <class Impl>
Impl* self(omnirt_backend_state* state) noexcept {
  return reinterpret_cast<Impl*>(state);
}

inline omnirt_status not_implemented(const char* slot) noexcept {
  std::string message = std::string("backend '") + globals().name +
                        "' does not implement " + slot;
  return report(OMNIRT_STATUS_NOT_SUPPORTED, 0, message.c_str());
}

// has_<method><Impl>: does the class declare that method?
#define OMNIRT_PLUGIN_DETECT(method)                                        \
  template <class T, class = void>                                          \
  struct has_##method : std::false_type {};                                 \
  template <class T>                                                        \
  struct has_##method<T, std::void_t<decltype(&T::method)>> : std::true_type {};

OMNIRT_PLUGIN_DETECT(is_available)
OMNIRT_PLUGIN_DETECT(capabilities)
OMNIRT_PLUGIN_DETECT(device_count)
OMNIRT_PLUGIN_DETECT(device_info)
OMNIRT_PLUGIN_DETECT(malloc_device)
OMNIRT_PLUGIN_DETECT(free_device)
OMNIRT_PLUGIN_DETECT(memcpy_sync)
OMNIRT_PLUGIN_DETECT(memset_sync)
OMNIRT_PLUGIN_DETECT(device_synchronize)
OMNIRT_PLUGIN_DETECT(malloc_host)
OMNIRT_PLUGIN_DETECT(free_host)
OMNIRT_PLUGIN_DETECT(malloc_async)
OMNIRT_PLUGIN_DETECT(free_async)
OMNIRT_PLUGIN_DETECT(memcpy_async)
OMNIRT_PLUGIN_DETECT(memset_async)
OMNIRT_PLUGIN_DETECT(mem_get_info)
OMNIRT_PLUGIN_DETECT(memory_stats)
OMNIRT_PLUGIN_DETECT(reset_memory_stats)
OMNIRT_PLUGIN_DETECT(stream_create)
OMNIRT_PLUGIN_DETECT(stream_destroy)
OMNIRT_PLUGIN_DETECT(stream_synchronize)
OMNIRT_PLUGIN_DETECT(stream_query)
OMNIRT_PLUGIN_DETECT(stream_wait_event)
OMNIRT_PLUGIN_DETECT(event_create)
OMNIRT_PLUGIN_DETECT(event_destroy)
OMNIRT_PLUGIN_DETECT(event_record)
OMNIRT_PLUGIN_DETECT(event_query)
OMNIRT_PLUGIN_DETECT(event_synchronize)
OMNIRT_PLUGIN_DETECT(event_elapsed_time)
OMNIRT_PLUGIN_DETECT(stream_begin_capture)
OMNIRT_PLUGIN_DETECT(stream_end_capture)
OMNIRT_PLUGIN_DETECT(graph_launch)
OMNIRT_PLUGIN_DETECT(graph_destroy)
OMNIRT_PLUGIN_DETECT(module_load)
OMNIRT_PLUGIN_DETECT(executable_run)
OMNIRT_PLUGIN_DETECT(executable_destroy)
OMNIRT_PLUGIN_DETECT(list_op_sets)
OMNIRT_PLUGIN_DETECT(list_ops)
OMNIRT_PLUGIN_DETECT(op_run)
OMNIRT_PLUGIN_DETECT(stream_get_default)
OMNIRT_PLUGIN_DETECT(output_name)
OMNIRT_PLUGIN_DETECT(comm_create)
OMNIRT_PLUGIN_DETECT(comm_create_local)
OMNIRT_PLUGIN_DETECT(comm_destroy)
OMNIRT_PLUGIN_DETECT(all_reduce)
OMNIRT_PLUGIN_DETECT(all_gather)
OMNIRT_PLUGIN_DETECT(reduce_scatter)
OMNIRT_PLUGIN_DETECT(broadcast)
OMNIRT_PLUGIN_DETECT(send)
OMNIRT_PLUGIN_DETECT(recv)
OMNIRT_PLUGIN_DETECT(group_start)
OMNIRT_PLUGIN_DETECT(group_end)
OMNIRT_PLUGIN_DETECT(collectives_library)
OMNIRT_PLUGIN_DETECT(comm_get_async_error)
OMNIRT_PLUGIN_DETECT(engine_prepare)
#undef OMNIRT_PLUGIN_DETECT

// One static noexcept trampoline per slot. Each forwards to the method of the
// same name; Impl's signature is the slot's minus `state`, except where noted.
template <class Impl>
struct Trampolines {
  static omnirt_status create(const omnirt_backend_create_args* args,
                              omnirt_backend_state** out) noexcept {
    return guard([&] {
      Impl* impl;
      if constexpr (std::is_constructible_v<Impl, const omnirt_backend_create_args&>) {
        impl = new Impl(*args);
      } else {
        impl = new Impl();
      }
      *out = reinterpret_cast<omnirt_backend_state*>(impl);
    });
  }
  static void destroy(omnirt_backend_state* state) noexcept {
    try {
      delete self<Impl>(state);
    } catch (...) {  // a destructor must not take the host down
    }
  }
  // Impl: Availability is_available();
  static omnirt_status is_available(omnirt_backend_state* s, int32_t* available,
                                    char* reason, size_t capacity) noexcept {
    return guard([&] {
      Availability a = self<Impl>(s)->is_available();
      *available = a.available ? 1 : 0;
      copy_text(reason, capacity, a.reason);
    });
  }
  // Impl: void capabilities(omnirt_capabilities& caps); caps arrives zeroed.
  static omnirt_status get_capabilities(omnirt_backend_state* s,
                                        omnirt_capabilities* caps) noexcept {
    return guard([&] {
      auto full = sized<omnirt_capabilities>();
      full.vendor = "";
      self<Impl>(s)->capabilities(full);
      copy_sized(caps, full);
    });
  }
  // Impl: int32_t device_count();
  static omnirt_status get_device_count(omnirt_backend_state* s, int32_t* count) noexcept {
    return guard([&] { *count = self<Impl>(s)->device_count(); });
  }
  // Impl: void device_info(int32_t device, omnirt_device_info& info); info arrives zeroed.
  static omnirt_status get_device_info(omnirt_backend_state* s, int32_t device,
                                       omnirt_device_info* info) noexcept {
    return guard([&] {
      auto full = sized<omnirt_device_info>();
      full.index = device;
      self<Impl>(s)->device_info(device, full);
      copy_sized(info, full);
    });
  }
  // Impl: void* malloc_device(int32_t device, size_t size);
  static omnirt_status malloc_device(omnirt_backend_state* s, int32_t device,
                                     size_t size, void** ptr) noexcept {
    return guard([&] { *ptr = self<Impl>(s)->malloc_device(device, size); });
  }
  static omnirt_status free_device(omnirt_backend_state* s, int32_t device,
                                   void* ptr) noexcept {
    return guard([&] { return self<Impl>(s)->free_device(device, ptr); });
  }
  static omnirt_status memcpy_sync(omnirt_backend_state* s, void* dst, const void* src,
                                   size_t size, int32_t kind) noexcept {
    return guard([&] { return self<Impl>(s)->memcpy_sync(dst, src, size, kind); });
  }
  static omnirt_status memset_sync(omnirt_backend_state* s, void* ptr, int32_t value,
                                   size_t size) noexcept {
    return guard([&] { return self<Impl>(s)->memset_sync(ptr, value, size); });
  }
  static omnirt_status device_synchronize(omnirt_backend_state* s, int32_t device) noexcept {
    return guard([&] { return self<Impl>(s)->device_synchronize(device); });
  }
  // Impl: void* malloc_host(size_t size);
  static omnirt_status malloc_host(omnirt_backend_state* s, size_t size, void** ptr) noexcept {
    return guard([&] { *ptr = self<Impl>(s)->malloc_host(size); });
  }
  static omnirt_status free_host(omnirt_backend_state* s, void* ptr) noexcept {
    return guard([&] { return self<Impl>(s)->free_host(ptr); });
  }
  // Impl: void* malloc_async(size_t size, omnirt_stream* stream);
  static omnirt_status malloc_async(omnirt_backend_state* s, size_t size,
                                    omnirt_stream* stream, void** ptr) noexcept {
    return guard([&] { *ptr = self<Impl>(s)->malloc_async(size, stream); });
  }
  static omnirt_status free_async(omnirt_backend_state* s, void* ptr,
                                  omnirt_stream* stream) noexcept {
    return guard([&] { return self<Impl>(s)->free_async(ptr, stream); });
  }
  static omnirt_status memcpy_async(omnirt_backend_state* s, void* dst, const void* src,
                                    size_t size, int32_t kind,
                                    omnirt_stream* stream) noexcept {
    return guard([&] { return self<Impl>(s)->memcpy_async(dst, src, size, kind, stream); });
  }
  static omnirt_status memset_async(omnirt_backend_state* s, void* ptr, int32_t value,
                                    size_t size, omnirt_stream* stream) noexcept {
    return guard([&] { return self<Impl>(s)->memset_async(ptr, value, size, stream); });
  }
  // Impl: void mem_get_info(int32_t device, size_t& free_bytes, size_t& total_bytes);
  static omnirt_status mem_get_info(omnirt_backend_state* s, int32_t device,
                                    size_t* free_bytes, size_t* total_bytes) noexcept {
    return guard([&] { return self<Impl>(s)->mem_get_info(device, *free_bytes, *total_bytes); });
  }
  // Impl: void memory_stats(int32_t device, omnirt_memory_stats& stats); stats arrives zeroed.
  static omnirt_status memory_stats(omnirt_backend_state* s, int32_t device,
                                    omnirt_memory_stats* stats) noexcept {
    return guard([&] {
      auto full = sized<omnirt_memory_stats>();
      self<Impl>(s)->memory_stats(device, full);
      copy_sized(stats, full);
    });
  }
  static omnirt_status reset_memory_stats(omnirt_backend_state* s, int32_t device) noexcept {
    return guard([&] { return self<Impl>(s)->reset_memory_stats(device); });
  }
  // Impl: omnirt_stream* stream_create(int32_t device);
  static omnirt_status stream_create(omnirt_backend_state* s, int32_t device,
                                     omnirt_stream** stream) noexcept {
    return guard([&] { *stream = self<Impl>(s)->stream_create(device); });
  }
  static omnirt_status stream_destroy(omnirt_backend_state* s, omnirt_stream* stream) noexcept {
    return guard([&] { return self<Impl>(s)->stream_destroy(stream); });
  }
  static omnirt_status stream_synchronize(omnirt_backend_state* s,
                                          omnirt_stream* stream) noexcept {
    return guard([&] { return self<Impl>(s)->stream_synchronize(stream); });
  }
  // Impl: bool stream_query(omnirt_stream*); true when idle.
  static omnirt_status stream_query(omnirt_backend_state* s, omnirt_stream* stream) noexcept {
    return guard([&] {
      return self<Impl>(s)->stream_query(stream) ? OMNIRT_STATUS_OK : OMNIRT_STATUS_NOT_READY;
    });
  }
  static omnirt_status stream_wait_event(omnirt_backend_state* s, omnirt_stream* stream,
                                         omnirt_event* event) noexcept {
    return guard([&] { return self<Impl>(s)->stream_wait_event(stream, event); });
  }
  // Impl: omnirt_event* event_create(int32_t device);
  static omnirt_status event_create(omnirt_backend_state* s, int32_t device,
                                    omnirt_event** event) noexcept {
    return guard([&] { *event = self<Impl>(s)->event_create(device); });
  }
  static omnirt_status event_destroy(omnirt_backend_state* s, omnirt_event* event) noexcept {
    return guard([&] { return self<Impl>(s)->event_destroy(event); });
  }
  static omnirt_status event_record(omnirt_backend_state* s, omnirt_event* event,
                                    omnirt_stream* stream) noexcept {
    return guard([&] { return self<Impl>(s)->event_record(event, stream); });
  }
  // Impl: bool event_query(omnirt_event*); true when complete.
  static omnirt_status event_query(omnirt_backend_state* s, omnirt_event* event) noexcept {
    return guard([&] {
      return self<Impl>(s)->event_query(event) ? OMNIRT_STATUS_OK : OMNIRT_STATUS_NOT_READY;
    });
  }
  static omnirt_status event_synchronize(omnirt_backend_state* s, omnirt_event* event) noexcept {
    return guard([&] { return self<Impl>(s)->event_synchronize(event); });
  }
  // Impl: float event_elapsed_time(omnirt_event* start, omnirt_event* end);
  static omnirt_status event_elapsed_time(omnirt_backend_state* s, omnirt_event* start,
                                          omnirt_event* end, float* ms) noexcept {
    return guard([&] { *ms = self<Impl>(s)->event_elapsed_time(start, end); });
  }
  static omnirt_status stream_begin_capture(omnirt_backend_state* s,
                                            omnirt_stream* stream) noexcept {
    return guard([&] { return self<Impl>(s)->stream_begin_capture(stream); });
  }
  // Impl: omnirt_graph* stream_end_capture(omnirt_stream* stream);
  static omnirt_status stream_end_capture(omnirt_backend_state* s, omnirt_stream* stream,
                                          omnirt_graph** graph) noexcept {
    return guard([&] { *graph = self<Impl>(s)->stream_end_capture(stream); });
  }
  static omnirt_status graph_launch(omnirt_backend_state* s, omnirt_graph* graph,
                                    omnirt_stream* stream) noexcept {
    return guard([&] { return self<Impl>(s)->graph_launch(graph, stream); });
  }
  static omnirt_status graph_destroy(omnirt_backend_state* s, omnirt_graph* graph) noexcept {
    return guard([&] { return self<Impl>(s)->graph_destroy(graph); });
  }
  // Impl: omnirt_executable* module_load(int32_t device, const omnirt_module_source& source,
  //                                      int32_t tier, const char* tag);
  static omnirt_status module_load(omnirt_backend_state* s, int32_t device,
                                   const omnirt_module_source* source, int32_t tier,
                                   const char* tag, omnirt_executable** exe) noexcept {
    return guard([&] { *exe = self<Impl>(s)->module_load(device, *source, tier, tag); });
  }
  static omnirt_status executable_run(omnirt_backend_state* s, omnirt_executable* exe,
                                      const DLTensor* inputs, size_t num_inputs,
                                      omnirt_stream* stream, DLManagedTensor** outputs,
                                      size_t capacity, size_t* num_outputs) noexcept {
    return guard([&] {
      return self<Impl>(s)->executable_run(exe, inputs, num_inputs, stream, outputs,
                                           capacity, num_outputs);
    });
  }
  static omnirt_status executable_destroy(omnirt_backend_state* s,
                                          omnirt_executable* exe) noexcept {
    return guard([&] { return self<Impl>(s)->executable_destroy(exe); });
  }
  static omnirt_status list_op_sets(omnirt_backend_state* s, const omnirt_op_set** sets,
                                    size_t* count) noexcept {
    return guard([&] { return self<Impl>(s)->list_op_sets(sets, count); });
  }
  static omnirt_status list_ops(omnirt_backend_state* s, const omnirt_op_decl** ops,
                                size_t* count) noexcept {
    return guard([&] { return self<Impl>(s)->list_ops(ops, count); });
  }
  static omnirt_status op_run(omnirt_backend_state* s, const char* name,
                              const DLTensor* inputs, size_t num_inputs, DLTensor* outputs,
                              size_t num_outputs, const omnirt_op_attr* attrs,
                              size_t num_attrs, omnirt_stream* stream) noexcept {
    return guard([&] {
      return self<Impl>(s)->op_run(name, inputs, num_inputs, outputs, num_outputs, attrs,
                                   num_attrs, stream);
    });
  }

  // --- ABI 1.1 ---
  // Impl: omnirt_stream* stream_get_default(int32_t device);
  static omnirt_status stream_get_default(omnirt_backend_state* s, int32_t device,
                                          omnirt_stream** stream) noexcept {
    return guard([&] { *stream = self<Impl>(s)->stream_get_default(device); });
  }
  // Impl: const char* output_name(omnirt_executable*, const DLManagedTensor* output);
  static omnirt_status output_name(omnirt_backend_state* s, omnirt_executable* exe,
                                   const DLManagedTensor* output, const char** name) noexcept {
    return guard([&] { *name = self<Impl>(s)->output_name(exe, output); });
  }
  // Impl: omnirt_comm* comm_create(const omnirt_comm_create_args& args);
  static omnirt_status comm_create(omnirt_backend_state* s, const omnirt_comm_create_args* args,
                                   omnirt_comm** comm) noexcept {
    return guard([&] { *comm = self<Impl>(s)->comm_create(*args); });
  }
  static omnirt_status comm_create_local(omnirt_backend_state* s, const int32_t* devices,
                                         size_t num_devices, omnirt_comm** comms) noexcept {
    return guard([&] { return self<Impl>(s)->comm_create_local(devices, num_devices, comms); });
  }
  static omnirt_status comm_destroy(omnirt_backend_state* s, omnirt_comm* comm) noexcept {
    return guard([&] { return self<Impl>(s)->comm_destroy(comm); });
  }
  static omnirt_status all_reduce(omnirt_backend_state* s, omnirt_comm* comm, const void* send,
                                  void* recv, size_t count, int32_t dtype, int32_t op,
                                  omnirt_stream* stream) noexcept {
    return guard([&] {
      return self<Impl>(s)->all_reduce(comm, send, recv, count, dtype, op, stream);
    });
  }
  static omnirt_status all_gather(omnirt_backend_state* s, omnirt_comm* comm, const void* send,
                                  void* recv, size_t send_count, int32_t dtype,
                                  omnirt_stream* stream) noexcept {
    return guard([&] {
      return self<Impl>(s)->all_gather(comm, send, recv, send_count, dtype, stream);
    });
  }
  static omnirt_status reduce_scatter(omnirt_backend_state* s, omnirt_comm* comm,
                                      const void* send, void* recv, size_t recv_count,
                                      int32_t dtype, int32_t op, omnirt_stream* stream) noexcept {
    return guard([&] {
      return self<Impl>(s)->reduce_scatter(comm, send, recv, recv_count, dtype, op, stream);
    });
  }
  static omnirt_status broadcast(omnirt_backend_state* s, omnirt_comm* comm, const void* send,
                                 void* recv, size_t count, int32_t dtype, int32_t root,
                                 omnirt_stream* stream) noexcept {
    return guard([&] {
      return self<Impl>(s)->broadcast(comm, send, recv, count, dtype, root, stream);
    });
  }
  static omnirt_status send(omnirt_backend_state* s, omnirt_comm* comm, const void* buffer,
                            size_t count, int32_t dtype, int32_t peer,
                            omnirt_stream* stream) noexcept {
    return guard([&] { return self<Impl>(s)->send(comm, buffer, count, dtype, peer, stream); });
  }
  static omnirt_status recv(omnirt_backend_state* s, omnirt_comm* comm, void* buffer,
                            size_t count, int32_t dtype, int32_t peer,
                            omnirt_stream* stream) noexcept {
    return guard([&] { return self<Impl>(s)->recv(comm, buffer, count, dtype, peer, stream); });
  }
  static omnirt_status group_start(omnirt_backend_state* s) noexcept {
    return guard([&] { return self<Impl>(s)->group_start(); });
  }
  static omnirt_status group_end(omnirt_backend_state* s) noexcept {
    return guard([&] { return self<Impl>(s)->group_end(); });
  }
  // Impl: std::string collectives_library();
  static omnirt_status collectives_library(omnirt_backend_state* s, char* text,
                                           size_t capacity) noexcept {
    return guard([&] { copy_text(text, capacity, self<Impl>(s)->collectives_library()); });
  }
  // Impl: void comm_get_async_error(omnirt_comm*); throws the failure, if any.
  static omnirt_status comm_get_async_error(omnirt_backend_state* s, omnirt_comm* comm) noexcept {
    return guard([&] { return self<Impl>(s)->comm_get_async_error(comm); });
  }
  // Impl: std::string engine_prepare(const char* format); returns what was loaded.
  static omnirt_status engine_prepare(omnirt_backend_state* s, const char* format,
                                      char* description, size_t capacity) noexcept {
    return guard([&] { copy_text(description, capacity, self<Impl>(s)->engine_prepare(format)); });
  }
};

// Required slots the class lacks answer NOT_SUPPORTED.
struct MissingRequired {
  static omnirt_status capabilities(omnirt_backend_state*, omnirt_capabilities*) noexcept {
    return not_implemented("get_capabilities");
  }
  static omnirt_status device_count(omnirt_backend_state*, int32_t* count) noexcept {
    *count = 0;
    return OMNIRT_STATUS_OK;
  }
  static omnirt_status device_info(omnirt_backend_state*, int32_t, omnirt_device_info*) noexcept {
    return not_implemented("get_device_info");
  }
  static omnirt_status malloc_device(omnirt_backend_state*, int32_t, size_t, void**) noexcept {
    return not_implemented("malloc_device");
  }
  static omnirt_status free_device(omnirt_backend_state*, int32_t, void*) noexcept {
    return not_implemented("free_device");
  }
  static omnirt_status memcpy_sync(omnirt_backend_state*, void*, const void*, size_t,
                                   int32_t) noexcept {
    return not_implemented("memcpy_sync");
  }
  static omnirt_status memset_sync(omnirt_backend_state*, void*, int32_t, size_t) noexcept {
    return not_implemented("memset_sync");
  }
  static omnirt_status device_synchronize(omnirt_backend_state*, int32_t) noexcept {
    return not_implemented("device_synchronize");
  }
};

// `if constexpr` keeps trampolines for methods the class lacks uninstantiated.
#define OMNIRT_PLUGIN_SLOT(method, slot) \
  if constexpr (has_##method<Impl>::value) v.slot = &Trampolines<Impl>::slot;
#define OMNIRT_PLUGIN_REQUIRED(method, slot)                       \
  if constexpr (has_##method<Impl>::value) {                       \
    v.slot = &Trampolines<Impl>::slot;                             \
  } else {                                                         \
    v.slot = &MissingRequired::method;                             \
  }

template <class Impl>
omnirt_backend_vtable make_vtable(const char* name, const char* version) noexcept {
  static_assert(has_is_available<Impl>::value,
                "a backend must define Availability is_available()");
  omnirt_backend_vtable v;
  std::memset(&v, 0, sizeof v);
  v.struct_size = sizeof(omnirt_backend_vtable);
  v.abi_version = OMNIRT_ABI_VERSION;
  v.name = name;
  v.plugin_version = version;
  v.create = &Trampolines<Impl>::create;
  v.destroy = &Trampolines<Impl>::destroy;
  v.is_available = &Trampolines<Impl>::is_available;
  OMNIRT_PLUGIN_REQUIRED(capabilities, get_capabilities)
  OMNIRT_PLUGIN_REQUIRED(device_count, get_device_count)
  OMNIRT_PLUGIN_REQUIRED(device_info, get_device_info)
  OMNIRT_PLUGIN_REQUIRED(malloc_device, malloc_device)
  OMNIRT_PLUGIN_REQUIRED(free_device, free_device)
  OMNIRT_PLUGIN_REQUIRED(memcpy_sync, memcpy_sync)
  OMNIRT_PLUGIN_REQUIRED(memset_sync, memset_sync)
  OMNIRT_PLUGIN_REQUIRED(device_synchronize, device_synchronize)
  OMNIRT_PLUGIN_SLOT(malloc_host, malloc_host)
  OMNIRT_PLUGIN_SLOT(free_host, free_host)
  OMNIRT_PLUGIN_SLOT(malloc_async, malloc_async)
  OMNIRT_PLUGIN_SLOT(free_async, free_async)
  OMNIRT_PLUGIN_SLOT(memcpy_async, memcpy_async)
  OMNIRT_PLUGIN_SLOT(memset_async, memset_async)
  OMNIRT_PLUGIN_SLOT(mem_get_info, mem_get_info)
  OMNIRT_PLUGIN_SLOT(memory_stats, memory_stats)
  OMNIRT_PLUGIN_SLOT(reset_memory_stats, reset_memory_stats)
  OMNIRT_PLUGIN_SLOT(stream_create, stream_create)
  OMNIRT_PLUGIN_SLOT(stream_destroy, stream_destroy)
  OMNIRT_PLUGIN_SLOT(stream_synchronize, stream_synchronize)
  OMNIRT_PLUGIN_SLOT(stream_query, stream_query)
  OMNIRT_PLUGIN_SLOT(stream_wait_event, stream_wait_event)
  OMNIRT_PLUGIN_SLOT(event_create, event_create)
  OMNIRT_PLUGIN_SLOT(event_destroy, event_destroy)
  OMNIRT_PLUGIN_SLOT(event_record, event_record)
  OMNIRT_PLUGIN_SLOT(event_query, event_query)
  OMNIRT_PLUGIN_SLOT(event_synchronize, event_synchronize)
  OMNIRT_PLUGIN_SLOT(event_elapsed_time, event_elapsed_time)
  OMNIRT_PLUGIN_SLOT(stream_begin_capture, stream_begin_capture)
  OMNIRT_PLUGIN_SLOT(stream_end_capture, stream_end_capture)
  OMNIRT_PLUGIN_SLOT(graph_launch, graph_launch)
  OMNIRT_PLUGIN_SLOT(graph_destroy, graph_destroy)
  OMNIRT_PLUGIN_SLOT(module_load, module_load)
  OMNIRT_PLUGIN_SLOT(executable_run, executable_run)
  OMNIRT_PLUGIN_SLOT(executable_destroy, executable_destroy)
  OMNIRT_PLUGIN_SLOT(list_op_sets, list_op_sets)
  OMNIRT_PLUGIN_SLOT(list_ops, list_ops)
  OMNIRT_PLUGIN_SLOT(op_run, op_run)
  OMNIRT_PLUGIN_SLOT(stream_get_default, stream_get_default)
  OMNIRT_PLUGIN_SLOT(output_name, output_name)
  OMNIRT_PLUGIN_SLOT(comm_create, comm_create)
  OMNIRT_PLUGIN_SLOT(comm_create_local, comm_create_local)
  OMNIRT_PLUGIN_SLOT(comm_destroy, comm_destroy)
  OMNIRT_PLUGIN_SLOT(all_reduce, all_reduce)
  OMNIRT_PLUGIN_SLOT(all_gather, all_gather)
  OMNIRT_PLUGIN_SLOT(reduce_scatter, reduce_scatter)
  OMNIRT_PLUGIN_SLOT(broadcast, broadcast)
  OMNIRT_PLUGIN_SLOT(send, send)
  OMNIRT_PLUGIN_SLOT(recv, recv)
  OMNIRT_PLUGIN_SLOT(group_start, group_start)
  OMNIRT_PLUGIN_SLOT(group_end, group_end)
  OMNIRT_PLUGIN_SLOT(collectives_library, collectives_library)
  OMNIRT_PLUGIN_SLOT(comm_get_async_error, comm_get_async_error)
  OMNIRT_PLUGIN_SLOT(engine_prepare, engine_prepare)
  return v;
}
#undef OMNIRT_PLUGIN_SLOT
#undef OMNIRT_PLUGIN_REQUIRED

}  // namespace detail

/// True when this plugin (built against OMNIRT_ABI_VERSION) can serve a host
/// offering [args->host_abi_min, args->host_abi_max]: same major version.
/// Minor differences are the host's to bridge (it reads struct_size). On
/// refusal, records the reason with the host.
inline bool negotiate(const omnirt_backend_entry_args* args) noexcept {
  if (args == nullptr || args->struct_size < sizeof(omnirt_backend_entry_args) ||
      args->host == nullptr) {
    return false;
  }
  const uint32_t ours = OMNIRT_VERSION_MAJOR(OMNIRT_ABI_VERSION);
  if (ours < OMNIRT_VERSION_MAJOR(args->host_abi_min) ||
      ours > OMNIRT_VERSION_MAJOR(args->host_abi_max)) {
    std::string m = "plugin speaks ABI major " + std::to_string(ours) +
                    ", host accepts majors " +
                    std::to_string(OMNIRT_VERSION_MAJOR(args->host_abi_min)) + ".." +
                    std::to_string(OMNIRT_VERSION_MAJOR(args->host_abi_max));
    args->host->set_error(OMNIRT_STATUS_INCOMPATIBLE, 0, m.c_str());
    return false;
  }
  return true;
}

/// Writes a line to the host's log (no-op before the entry ran).
inline void log(int32_t level, const std::string& message) noexcept {
  const omnirt_host_services* host = detail::globals().host;
  if (host != nullptr && host->log != nullptr) {
    host->log(level, detail::globals().name, message.c_str());
  }
}

/// The body of a plugin's entry symbol; use OMNIRT_DEFINE_BACKEND instead.
template <class Impl>
const omnirt_backend_vtable* entry(const omnirt_backend_entry_args* args, const char* name,
                                   const char* version) noexcept {
  if (!negotiate(args)) return nullptr;
  detail::globals().host = args->host;
  detail::globals().name = name;
  static const omnirt_backend_vtable vtable = detail::make_vtable<Impl>(name, version);
  return &vtable;
}

}  // namespace omnirt::plugin

/// Defines the plugin's one exported symbol for backend class `Impl`.
/// `name` must match the file name libomnirt_backend_<name>.so.
#define OMNIRT_DEFINE_BACKEND(Impl, name, version)                                \
  extern "C" OMNIRT_EXPORT const omnirt_backend_vtable* omnirt_backend_entry(     \
      const omnirt_backend_entry_args* args) {                                    \
    return ::omnirt::plugin::entry<Impl>(args, name, version);                    \
  }

#endif  // OMNIRT_CPP_PLUGIN_HPP_
