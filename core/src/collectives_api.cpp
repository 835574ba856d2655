// C entry points of ABI 1.1's collectives, routed to a backend's vtable like
// memory and streams (routing.cpp): argument checks, then call_slot().
#include <algorithm>
#include <string>

#include "backend.h"
#include "error.h"
#include "omnirt/cpp/utf8.hpp"
#include "omnirt/host.h"
#include "plugin_call.h"
#include "plugin_text.h"

namespace {

using omnirt::call_slot;
using omnirt::fail;
using omnirt::require_non_null;
using omnirt::require_usable;
using V = omnirt_backend_vtable;

// A buffer may be NULL only when no element of it is touched.
inline omnirt_status require_elements(const void* pointer, size_t count, const char* call,
                                      const char* argument) noexcept {
  return count == 0 ? OMNIRT_STATUS_OK : require_non_null(pointer, call, argument);
}

// The checks every collective on a communicator shares.
inline omnirt_status require_collective(omnirt_backend* backend, omnirt_comm* comm,
                                        const char* call) noexcept {
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, call));
  return require_non_null(comm, call, "comm");
}

// The store a communicator meets through: complete, with every callback.
omnirt_status require_store(const omnirt_comm_create_args& args, const char* call) noexcept {
  const omnirt_kv_store* store = args.store;
  OMNIRT_RETURN_IF_ERROR(require_non_null(store, call, "args->store"));
  if (store->struct_size < sizeof(omnirt_kv_store)) {
    return fail(OMNIRT_STATUS_INCOMPATIBLE, {}, "{}: args->store->struct_size is {}; set it to {}",
                call, store->struct_size, sizeof(omnirt_kv_store));
  }
  OMNIRT_RETURN_IF_ERROR(require_non_null(reinterpret_cast<const void*>(store->put), call,
                                          "args->store->put"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(reinterpret_cast<const void*>(store->get), call,
                                          "args->store->get"));
  return require_non_null(reinterpret_cast<const void*>(store->wait), call, "args->store->wait");
}

// A backend without communicators here: one that implements collectives but
// lacks its library today says why through its collectives_library slot
// (which stays callable with the bit clear), with that slot's status; any
// other answers NOT_SUPPORTED like every unimplemented slot.
omnirt_status no_communicators(omnirt_backend& backend, const char* call) noexcept {
  if (backend.vtable.collectives_library == nullptr) {
    return fail(OMNIRT_STATUS_NOT_SUPPORTED, backend.name, "{}: backend '{}' has no collectives", call,
                backend.name);
  }
  char reason[OMNIRT_TEXT_MAX_MESSAGE + 1] = "";
  const omnirt_status status = omnirt_collectives_library(&backend, reason, sizeof reason);
  if (status == OMNIRT_STATUS_OK) {
    return fail(OMNIRT_STATUS_INCOMPATIBLE, backend.name,
                "{}: backend '{}' names a collective library ({}) but does not advertise "
                "OMNIRT_FEATURE_COLLECTIVES",
                call, backend.name, reason);
  }
  return fail(status, backend.name, "{}: backend '{}' has no collective library here: {}", call,
              backend.name, std::string(omnirt_last_error()->message));
}

}  // namespace

omnirt_status omnirt_comm_create(omnirt_backend* backend, const omnirt_comm_create_args* args,
                                 omnirt_comm** comm) {
  constexpr const char* kCall = "omnirt_comm_create";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(args, kCall, "args"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(comm, kCall, "comm"));
  *comm = nullptr;
  if (args->struct_size < sizeof(omnirt_comm_create_args)) {
    return fail(OMNIRT_STATUS_INCOMPATIBLE, {}, "{}: args->struct_size is {}; set it to {}", kCall,
                args->struct_size, sizeof(omnirt_comm_create_args));
  }
  OMNIRT_RETURN_IF_ERROR(require_store(*args, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(args->key_prefix, kCall, "args->key_prefix"));
  if (args->nranks < 1 || args->rank < 0 || args->rank >= args->nranks) {
    return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: rank {} is not in [0, nranks = {})", kCall,
                args->rank, args->nranks);
  }
  OMNIRT_RETURN_IF_ERROR(omnirt::require_device(*backend, args->device, kCall));
  if (backend->vtable.comm_create == nullptr) return no_communicators(*backend, kCall);
  return call_slot<&V::comm_create>(*backend, "comm_create", args, comm);
}

omnirt_status omnirt_comm_create_local(omnirt_backend* backend, const int32_t* devices,
                                       size_t num_devices, omnirt_comm** comms) {
  constexpr const char* kCall = "omnirt_comm_create_local";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(devices, kCall, "devices"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(comms, kCall, "comms"));
  if (num_devices == 0) {
    return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: num_devices is 0", kCall);
  }
  for (size_t i = 0; i < num_devices; ++i) {
    comms[i] = nullptr;
    OMNIRT_RETURN_IF_ERROR(omnirt::require_device(*backend, devices[i], kCall));
  }
  if (backend->vtable.comm_create_local == nullptr) return no_communicators(*backend, kCall);
  return call_slot<&V::comm_create_local>(*backend, "comm_create_local", devices, num_devices,
                                          comms);
}

omnirt_status omnirt_comm_destroy(omnirt_backend* backend, omnirt_comm* comm) {
  constexpr const char* kCall = "omnirt_comm_destroy";
  OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
  if (comm == nullptr) return OMNIRT_STATUS_OK;
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  return call_slot<&V::comm_destroy>(*backend, "comm_destroy", comm);
}

omnirt_status omnirt_all_reduce(omnirt_backend* backend, omnirt_comm* comm, const void* send,
                                void* recv, size_t count, int32_t dtype, int32_t op,
                                omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_all_reduce";
  OMNIRT_RETURN_IF_ERROR(require_collective(backend, comm, kCall));
  OMNIRT_RETURN_IF_ERROR(require_elements(send, count, kCall, "send"));
  OMNIRT_RETURN_IF_ERROR(require_elements(recv, count, kCall, "recv"));
  return call_slot<&V::all_reduce>(*backend, "all_reduce", comm, send, recv, count, dtype, op,
                                   stream);
}

omnirt_status omnirt_all_gather(omnirt_backend* backend, omnirt_comm* comm, const void* send,
                                void* recv, size_t send_count, int32_t dtype,
                                omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_all_gather";
  OMNIRT_RETURN_IF_ERROR(require_collective(backend, comm, kCall));
  OMNIRT_RETURN_IF_ERROR(require_elements(send, send_count, kCall, "send"));
  OMNIRT_RETURN_IF_ERROR(require_elements(recv, send_count, kCall, "recv"));
  return call_slot<&V::all_gather>(*backend, "all_gather", comm, send, recv, send_count, dtype,
                                   stream);
}

omnirt_status omnirt_reduce_scatter(omnirt_backend* backend, omnirt_comm* comm, const void* send,
                                    void* recv, size_t recv_count, int32_t dtype, int32_t op,
                                    omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_reduce_scatter";
  OMNIRT_RETURN_IF_ERROR(require_collective(backend, comm, kCall));
  OMNIRT_RETURN_IF_ERROR(require_elements(send, recv_count, kCall, "send"));
  OMNIRT_RETURN_IF_ERROR(require_elements(recv, recv_count, kCall, "recv"));
  return call_slot<&V::reduce_scatter>(*backend, "reduce_scatter", comm, send, recv, recv_count,
                                       dtype, op, stream);
}

omnirt_status omnirt_broadcast(omnirt_backend* backend, omnirt_comm* comm, const void* send,
                               void* recv, size_t count, int32_t dtype, int32_t root,
                               omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_broadcast";
  OMNIRT_RETURN_IF_ERROR(require_collective(backend, comm, kCall));
  OMNIRT_RETURN_IF_ERROR(require_elements(recv, count, kCall, "recv"));
  return call_slot<&V::broadcast>(*backend, "broadcast", comm, send, recv, count, dtype, root,
                                  stream);
}

omnirt_status omnirt_send(omnirt_backend* backend, omnirt_comm* comm, const void* buffer,
                          size_t count, int32_t dtype, int32_t peer, omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_send";
  OMNIRT_RETURN_IF_ERROR(require_collective(backend, comm, kCall));
  OMNIRT_RETURN_IF_ERROR(require_elements(buffer, count, kCall, "buffer"));
  return call_slot<&V::send>(*backend, "send", comm, buffer, count, dtype, peer, stream);
}

omnirt_status omnirt_recv(omnirt_backend* backend, omnirt_comm* comm, void* buffer, size_t count,
                          int32_t dtype, int32_t peer, omnirt_stream* stream) {
  constexpr const char* kCall = "omnirt_recv";
  OMNIRT_RETURN_IF_ERROR(require_collective(backend, comm, kCall));
  OMNIRT_RETURN_IF_ERROR(require_elements(buffer, count, kCall, "buffer"));
  return call_slot<&V::recv>(*backend, "recv", comm, buffer, count, dtype, peer, stream);
}

omnirt_status omnirt_comm_get_async_error(omnirt_backend* backend, omnirt_comm* comm) {
  OMNIRT_RETURN_IF_ERROR(require_collective(backend, comm, "omnirt_comm_get_async_error"));
  return call_slot<&V::comm_get_async_error>(*backend, "comm_get_async_error", comm);
}

omnirt_status omnirt_group_start(omnirt_backend* backend) {
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, "omnirt_group_start"));
  return call_slot<&V::group_start>(*backend, "group_start");
}

omnirt_status omnirt_group_end(omnirt_backend* backend) {
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, "omnirt_group_end"));
  return call_slot<&V::group_end>(*backend, "group_end");
}

omnirt_status omnirt_collectives_library(omnirt_backend* backend, char* text, size_t capacity) {
  constexpr const char* kCall = "omnirt_collectives_library";
  OMNIRT_RETURN_IF_ERROR(require_usable(backend, kCall));
  OMNIRT_RETURN_IF_ERROR(require_non_null(text, kCall, "text"));
  if (capacity == 0) return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: capacity is 0", kCall);
  text[0] = '\0';
  const omnirt_status status =
      call_slot<&V::collectives_library>(*backend, "collectives_library", text, capacity);
  // Read no further than the buffer, repaired, and cut (to fit the buffer)
  // after a whole character or escape.
  return omnirt::guard_api(kCall, [&] {
    const size_t bound = std::min<size_t>(OMNIRT_TEXT_MAX_MESSAGE, capacity - 1);
    omnirt::utf8::copy_text(text, capacity, omnirt::read_buffer_text(text, capacity, bound).text);
    return status;
  });
}
