/*
 * The C interface between the cpu plugin and its collectives library,
 * libomnirt_cpu_gloo.so (gloo over TCP).
 *
 * A separate library so that the plugin links no gloo (DESIGN decision 4):
 * the plugin dlopens it from its own folder on the first communicator only.
 * Everything crosses as C; exceptions never do.
 *
 * Errors: a function that fails returns a non-OK omnirt_status and writes a
 * NUL-terminated message into `message` (capacity bytes, truncating).
 * Threads: every function may be called from any thread. One communicator
 * may run several `run` calls at once (each with its own sequence numbers).
 */
#ifndef OMNIRT_CPU_GLOO_API_H_
#define OMNIRT_CPU_GLOO_API_H_

#include "omnirt/types.h"

OMNIRT_EXTERN_C_BEGIN

/** File name of the library, looked up next to the plugin. */
#define OMNIRT_CPU_GLOO_FILE "libomnirt_cpu_gloo.so"
/** The one symbol the library exports; returns `const omnirt_cpu_gloo_api*`. */
#define OMNIRT_CPU_GLOO_SYMBOL "omnirt_cpu_gloo_get"
/** Version of this table; bumped on any change the plugin must know about. */
#define OMNIRT_CPU_GLOO_API_VERSION 1

/** One rank's gloo communicator. Owned by the library. */
typedef struct omnirt_cpu_gloo_comm omnirt_cpu_gloo_comm;

/**
 * One operation on a communicator. `kind` is a plugin_common::CollectiveKind
 * (all_reduce, all_gather, reduce_scatter, broadcast, send, recv), and the
 * fields mean what the omnirt_backend_vtable slot of that name says; the
 * plugin has checked them (plugin_common/collectives.h).
 */
typedef struct omnirt_cpu_gloo_op {
  int32_t kind;
  /** omnirt_dtype of the buffers. */
  int32_t dtype;
  /** omnirt_reduce_op of all_reduce and reduce_scatter. */
  int32_t reduce_op;
  /** Root of a broadcast, peer of a send or recv; unused otherwise. */
  int32_t peer;
  /** Input (the buffer of a send); unused by recv. */
  const void* send;
  /** Output (the buffer of a recv); unused by send. */
  void* recv;
  /** Element count, as the slot's. */
  size_t count;
  /**
   * The operation's number, given when it was issued: collectives are counted
   * in the communicator's issue order, sends per destination and receives per
   * source. The ranks that meet in an operation give it the same number.
   */
  uint64_t sequence;
} omnirt_cpu_gloo_op;

typedef struct omnirt_cpu_gloo_api {
  /** sizeof(omnirt_cpu_gloo_api) as the library was compiled. */
  size_t struct_size;
  /** OMNIRT_CPU_GLOO_API_VERSION the library implements. */
  uint32_t api_version;
  /** "gloo 0.5.0 (TCP)": the gloo the library was built with. Static string. */
  const char* library_version;

  /**
   * Joins the group `args` describes (rank, nranks, store, key_prefix,
   * timeout_ms), listening on `hostname` ("" : this machine's hostname).
   * Blocks until every rank connected; TIMEOUT naming the missing ranks.
   * `args->store` must outlive the communicator.
   */
  omnirt_status (*comm_create)(const omnirt_comm_create_args* args, const char* hostname,
                               omnirt_cpu_gloo_comm** comm, char* message, size_t capacity);
  /**
   * Makes a group of `nranks` communicators in this process, rank i in
   * comms[i], meeting through a store of their own and connected over the
   * loopback.
   */
  omnirt_status (*comm_create_local)(int32_t nranks, omnirt_cpu_gloo_comm** comms,
                                     char* message, size_t capacity);
  /** Closes a communicator's connections and frees it. NULL is a no-op. */
  void (*comm_destroy)(omnirt_cpu_gloo_comm* comm);

  /**
   * Runs `num_ops` operations of `comm` in order and returns when all are
   * done: collectives one after the other, sends and receives started in
   * order and waited for at the end (a group: a send and a receive between
   * two ranks may be in one call on each). A failure breaks the communicator:
   * this and every later call returns it (TIMEOUT naming the ranks that did
   * not join, INVALID_ARGUMENT when the ranks disagree on an operation).
   */
  omnirt_status (*run)(omnirt_cpu_gloo_comm* comm, const omnirt_cpu_gloo_op* ops,
                       size_t num_ops, char* message, size_t capacity);
  /** OK while `comm` has not failed; else its failure, as run returned it. */
  omnirt_status (*comm_error)(omnirt_cpu_gloo_comm* comm, char* message, size_t capacity);
} omnirt_cpu_gloo_api;

OMNIRT_EXTERN_C_END

#endif /* OMNIRT_CPU_GLOO_API_H_ */
