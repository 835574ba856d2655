/*
 * OmniRT C ABI — the backend contract a plugin implements.
 *
 * A plugin is a shared object named libomnirt_backend_<name>.so that exports
 * exactly one symbol, OMNIRT_BACKEND_ENTRY_SYMBOL. The host calls it once
 * after dlopen, offering the ABI range it speaks; the plugin answers with a
 * vtable of the ABI version it implements, which must have the host's major.
 * Any minor of that major is accepted, older or newer than the host's: the
 * host uses only the slots that lie inside both its own vtable and the
 * plugin's struct_size. The host validates the vtable (struct_size, required
 * slots, name) before it uses it.
 *
 * Work is stream-ordered. Slots that take an `omnirt_stream*` (module runs,
 * named ops, async copies and sets, collectives) enqueue their work on that
 * stream, or on the device's default stream when it is NULL, and may return
 * before the work completes; their outputs are valid in stream order. A
 * caller waits with stream_synchronize, event_record + event_synchronize, or
 * device_synchronize (ABI 1.0 plugins: the only way for the default stream;
 * 1.1: stream_get_default names it). A backend whose work is synchronous (the
 * cpu backend without a stream) simply completes before returning.
 *
 * The numbered rules every plugin must follow are in abi/PLUGIN_RULES.md; the
 * most important ones are repeated on the slots below. In short:
 *  - nothing heavy at load: the vendor SDK and the engine are dlopen'ed on
 *    first real use, never by the entry, create, is_available or
 *    get_capabilities;
 *  - every slot is thread-safe and never lets an exception escape;
 *  - an unimplemented feature is a NULL optional slot or returns
 *    OMNIRT_STATUS_NOT_SUPPORTED, and its capability bit is clear.
 *
 * Errors: a slot that fails returns a non-OK status and should first call
 * host->set_error() (see omnirt_host_services) with a message a user can act
 * on and the vendor's native error code.
 *
 * Text (PLUGIN_RULES 13). Every string a plugin hands the host — names,
 * versions, tags, reasons, messages, log lines — is NUL-terminated UTF-8
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF)
 * without control characters (U+0000-U+001F, U+007F-U+009F), and at most
 * the OMNIRT_TEXT_MAX_* bytes below before its NUL. The host reads every
 * string with that bound and enforces the rule where the text enters it: a
 * vtable `name` or `plugin_version` that breaks it rejects the plugin at the
 * "validate" stage; an op whose name breaks it is ignored; an output_name,
 * which the host hands on by pointer, is refused (INTERNAL); any other text
 * is repaired — each byte that is not part of a valid character, and each
 * byte of a control character, becomes the four characters \xNN (its value
 * in hex), and text longer than its bound is cut after the last whole
 * character (or escape) that fits. A character the plugin itself cut in two
 * at the end of a buffer it filled is dropped.
 *
 * Slots (PLUGIN_RULES 14). The host copies the vtable at load and checks it: every
 * non-NULL slot must point into the plugin's own code (not into another
 * library, data or unmapped memory), else the plugin is rejected at
 * "validate" naming the slot. After create, the host asks get_capabilities
 * once and sets to NULL, in its copy, every optional slot whose capability
 * bit is clear, so such a slot is never called (the host answers
 * NOT_SUPPORTED itself). Later answers of get_capabilities may clear a bit
 * (a lazily loaded SDK turns out to lack the feature: its slots then return
 * NOT_SUPPORTED) but never set one the first answer did not have.
 *
 * Vetting (PLUGIN_RULES 15). Before a host loads a new or changed plugin
 * file, it loads it the same way in a child process under a time limit; a
 * plugin that crashes, exits or hangs there is rejected without ever being
 * loaded into the host's process. So everything up to is_available, and
 * destroy and dlclose, may run twice, in two processes.
 */
#ifndef OMNIRT_BACKEND_H_
#define OMNIRT_BACKEND_H_

#include "omnirt/status.h"
#include "omnirt/types.h"
#include "omnirt/version.h"

OMNIRT_EXTERN_C_BEGIN

/** Name of the one symbol a plugin exports. */
#define OMNIRT_BACKEND_ENTRY_SYMBOL "omnirt_backend_entry"

/*
 * ABI 1.1. Bounds of text a plugin hands the host, in bytes before the NUL
 * (see "Text" in the file comment). A string that reaches its bound without
 * a NUL is "too long" whether or not a NUL follows later: the host never
 * reads further.
 */
/** Backend name ([a-z0-9_]{1,32}). */
#define OMNIRT_TEXT_MAX_NAME 32
/** plugin_version. */
#define OMNIRT_TEXT_MAX_VERSION 64
/** Tags: capabilities' vendor and module formats (also unavailable ones). */
#define OMNIRT_TEXT_MAX_TAG 64
/** Identifiers: op names, op-set names, output names. */
#define OMNIRT_TEXT_MAX_IDENTIFIER 128
/**
 * Messages: is_available reasons, why a module format is unavailable,
 * set_error messages, log lines, collectives_library.
 */
#define OMNIRT_TEXT_MAX_MESSAGE 1024
/**
 * ABI 1.1. Longest array the host reads from a plugin: module formats, op
 * sets, op declarations. A longer count is garbage: capabilities that claim
 * more module formats reject the plugin; longer op lists are refused.
 */
#define OMNIRT_MAX_PLUGIN_LIST 4096

/**
 * Services the host lends to a plugin. Owned by the host; valid from the entry
 * call until the plugin is unloaded. Every function is thread-safe.
 */
typedef struct omnirt_host_services {
  /** sizeof(omnirt_host_services) as the host knows it. */
  size_t struct_size;
  /** Packed ABI version of the host (OMNIRT_MAKE_VERSION). */
  uint32_t host_abi_version;
  /**
   * Records the detail of the failure of the slot now running on this thread
   * and returns `status` unchanged, so a slot can `return set_error(...)`.
   * `message` is copied (may be NULL): text of at most
   * OMNIRT_TEXT_MAX_MESSAGE bytes (longer is cut, invalid bytes escaped);
   * `native_code` is the vendor's own error code, or 0. Calling it from a
   * slot that then returns OK has no effect.
   */
  omnirt_status (*set_error)(omnirt_status status, int64_t native_code,
                             const char* message);
  /**
   * Writes a line to the host's log. `level` is an omnirt_log_level; `backend`
   * is the plugin's name. Strings are copied, each read up to
   * OMNIRT_TEXT_MAX_MESSAGE bytes and repaired like all plugin text (so a
   * message cannot forge further log lines). Cheap when the level is off.
   */
  void (*log)(int32_t level, const char* backend, const char* message);
} omnirt_host_services;

/** What the host offers when it calls the entry symbol. Owned by the host. */
typedef struct omnirt_backend_entry_args {
  /** sizeof(omnirt_backend_entry_args) as the host knows it. */
  size_t struct_size;
  /** Lowest packed ABI version the host accepts. */
  uint32_t host_abi_min;
  /** Highest packed ABI version the host accepts (its own). */
  uint32_t host_abi_max;
  /** The host's services; valid until the plugin is unloaded. Never NULL. */
  const omnirt_host_services* host;
} omnirt_backend_entry_args;

/** Arguments of the `create` slot. Owned by the host; valid during the call. */
typedef struct omnirt_backend_create_args {
  /** sizeof(omnirt_backend_create_args) as the host knows it. */
  size_t struct_size;
  /**
   * Per-backend options from the host's configuration (the YAML key
   * `backends.<name>.options`), as parallel arrays of NUL-terminated
   * key/value strings. Copy what you keep. May be NULL when num_options is 0.
   */
  const char* const* option_keys;
  /** Values matching option_keys. */
  const char* const* option_values;
  /** Number of options. */
  size_t num_options;
} omnirt_backend_create_args;

/**
 * The vtable a plugin returns. Lives in the plugin (usually static storage)
 * and must stay valid and unchanged until the plugin is unloaded.
 *
 * Slots marked REQUIRED must be non-NULL or the host rejects the plugin at
 * load ("validate" stage). OPTIONAL slots may be NULL; the host then answers
 * OMNIRT_STATUS_NOT_SUPPORTED itself without calling the plugin. It does the
 * same for an optional slot whose capability bit (in parentheses) is clear,
 * whatever the slot holds. Every non-NULL slot points into the plugin's code.
 *
 * Unless a slot says otherwise: `state` is the value `create` produced; out
 * pointers are non-NULL (the host checks); `device` is in [0, device_count);
 * every slot may be called from any thread, concurrently.
 */
typedef struct omnirt_backend_vtable {
  /** sizeof(omnirt_backend_vtable) as the plugin was compiled. */
  size_t struct_size;
  /**
   * Packed ABI version this vtable implements: the host's major, any minor
   * (OMNIRT_ABI_VERSION of the headers the plugin was built with).
   */
  uint32_t abi_version;
  /**
   * Backend name: [a-z0-9_]{1,32}, equal to <name> in the file name
   * libomnirt_backend_<name>.so. Static string.
   */
  const char* name;
  /**
   * The plugin's own version (semver, "1.4.2"). Static string: text of at
   * most OMNIRT_TEXT_MAX_VERSION bytes, else the plugin is rejected.
   */
  const char* plugin_version;

  /* --- lifecycle and discovery (REQUIRED) ------------------------------- */

  /**
   * REQUIRED. Makes a backend instance for one host. Must be cheap: no vendor
   * driver or engine is loaded here (rule 4). `args` is never NULL. On success
   * stores a non-NULL state in *out.
   */
  omnirt_status (*create)(const omnirt_backend_create_args* args,
                          omnirt_backend_state** out);
  /** REQUIRED. Destroys an instance. Accepts NULL. Never fails. */
  void (*destroy)(omnirt_backend_state* state);
  /**
   * REQUIRED. Can this backend run here? Cheap, no side effects, never
   * throws. Sets *available to 1 or 0; when 0, writes a NUL-terminated reason
   * ("libascendcl.so not found") into `reason` (capacity bytes, truncating on
   * a character boundary; the host offers OMNIRT_TEXT_MAX_MESSAGE + 1).
   * Returns OK whenever it could answer, available or not.
   */
  omnirt_status (*is_available)(omnirt_backend_state* state, int32_t* available,
                                char* reason, size_t reason_capacity);
  /**
   * REQUIRED. Fills *caps (the caller sets caps->struct_size). Cheap. The
   * host asks once after create and keeps the vendor and module formats it
   * got then; the optional slots of features absent then are never called.
   * Later answers may clear feature bits, never set new ones; device_count
   * may change.
   */
  omnirt_status (*get_capabilities)(omnirt_backend_state* state,
                                    omnirt_capabilities* caps);
  /** REQUIRED. Number of devices; 0 when unavailable. */
  omnirt_status (*get_device_count)(omnirt_backend_state* state, int32_t* count);
  /** REQUIRED. Describes one device (the caller sets info->struct_size). */
  omnirt_status (*get_device_info)(omnirt_backend_state* state, int32_t device,
                                   omnirt_device_info* info);

  /* --- synchronous memory (REQUIRED) ------------------------------------ */

  /**
   * REQUIRED. Allocates `size` bytes of device memory on `device`, aligned to
   * at least 256 bytes. size 0 yields *ptr == NULL and OK. Returns
   * OMNIRT_STATUS_OUT_OF_MEMORY when the device is full.
   */
  omnirt_status (*malloc_device)(omnirt_backend_state* state, int32_t device,
                                 size_t size, void** ptr);
  /** REQUIRED. Frees memory from malloc_device. NULL is a no-op. */
  omnirt_status (*free_device)(omnirt_backend_state* state, int32_t device,
                               void* ptr);
  /**
   * REQUIRED. Copies `size` bytes; returns when the copy is complete and
   * all earlier work on the device's default stream is done.
   */
  omnirt_status (*memcpy_sync)(omnirt_backend_state* state, void* dst,
                               const void* src, size_t size, int32_t kind);
  /**
   * REQUIRED. Sets `size` bytes at device pointer `ptr` to (uint8_t)value;
   * returns when they are set and all earlier work on the device's default
   * stream is done.
   */
  omnirt_status (*memset_sync)(omnirt_backend_state* state, void* ptr,
                               int32_t value, size_t size);
  /** REQUIRED. Blocks until all work on every stream of `device` is done. */
  omnirt_status (*device_synchronize)(omnirt_backend_state* state,
                                      int32_t device);

  /* --- OPTIONAL memory (capability bits in parentheses) ----------------- */

  /** OPTIONAL (HOST_ALLOC). Page-locked host memory usable for async copies. */
  omnirt_status (*malloc_host)(omnirt_backend_state* state, size_t size,
                               void** ptr);
  /** OPTIONAL (HOST_ALLOC). Frees memory from malloc_host. NULL is a no-op. */
  omnirt_status (*free_host)(omnirt_backend_state* state, void* ptr);
  /**
   * OPTIONAL (STREAM_ORDERED_ALLOC). Allocates on `stream`'s device; the
   * memory may be used by work enqueued on `stream` after this call.
   */
  omnirt_status (*malloc_async)(omnirt_backend_state* state, size_t size,
                                omnirt_stream* stream, void** ptr);
  /** OPTIONAL (STREAM_ORDERED_ALLOC). Frees once earlier work on `stream` is done. */
  omnirt_status (*free_async)(omnirt_backend_state* state, void* ptr,
                              omnirt_stream* stream);
  /**
   * OPTIONAL (ASYNC_COPY). Enqueues a copy on `stream`; returns at once. The
   * buffers must stay valid until the copy completes.
   */
  omnirt_status (*memcpy_async)(omnirt_backend_state* state, void* dst,
                                const void* src, size_t size, int32_t kind,
                                omnirt_stream* stream);
  /** OPTIONAL (ASYNC_COPY). Enqueues a memset on `stream`. */
  omnirt_status (*memset_async)(omnirt_backend_state* state, void* ptr,
                                int32_t value, size_t size,
                                omnirt_stream* stream);
  /** OPTIONAL (MEM_INFO). Free and total device memory in bytes. */
  omnirt_status (*mem_get_info)(omnirt_backend_state* state, int32_t device,
                                size_t* free_bytes, size_t* total_bytes);
  /** OPTIONAL (MEMORY_STATS). Fills *stats (caller sets stats->struct_size). */
  omnirt_status (*memory_stats)(omnirt_backend_state* state, int32_t device,
                                omnirt_memory_stats* stats);
  /** OPTIONAL (MEMORY_STATS). Resets peak to current and counts to zero. */
  omnirt_status (*reset_memory_stats)(omnirt_backend_state* state,
                                      int32_t device);

  /* --- OPTIONAL streams and events -------------------------------------- */

  /** OPTIONAL (STREAMS). Creates a stream on `device`. */
  omnirt_status (*stream_create)(omnirt_backend_state* state, int32_t device,
                                 omnirt_stream** stream);
  /** OPTIONAL (STREAMS). Waits for the stream's work, then destroys it. NULL is a no-op. */
  omnirt_status (*stream_destroy)(omnirt_backend_state* state,
                                  omnirt_stream* stream);
  /** OPTIONAL (STREAMS). Blocks until all work enqueued on `stream` is done. */
  omnirt_status (*stream_synchronize)(omnirt_backend_state* state,
                                      omnirt_stream* stream);
  /** OPTIONAL (STREAMS). OK when the stream is idle, NOT_READY otherwise. */
  omnirt_status (*stream_query)(omnirt_backend_state* state,
                                omnirt_stream* stream);
  /** OPTIONAL (STREAM_WAIT_EVENT). Later work on `stream` waits for `event`. */
  omnirt_status (*stream_wait_event)(omnirt_backend_state* state,
                                     omnirt_stream* stream, omnirt_event* event);
  /** OPTIONAL (EVENTS). Creates an event on `device`. */
  omnirt_status (*event_create)(omnirt_backend_state* state, int32_t device,
                                omnirt_event** event);
  /** OPTIONAL (EVENTS). Destroys an event. NULL is a no-op. */
  omnirt_status (*event_destroy)(omnirt_backend_state* state,
                                 omnirt_event* event);
  /**
   * OPTIONAL (EVENTS). Records `event` on `stream`: it completes when all
   * work enqueued on the stream before this call is done.
   */
  omnirt_status (*event_record)(omnirt_backend_state* state, omnirt_event* event,
                                omnirt_stream* stream);
  /** OPTIONAL (EVENTS). OK when complete (or never recorded), NOT_READY otherwise. */
  omnirt_status (*event_query)(omnirt_backend_state* state, omnirt_event* event);
  /** OPTIONAL (EVENTS). Blocks until the event completes. */
  omnirt_status (*event_synchronize)(omnirt_backend_state* state,
                                     omnirt_event* event);
  /**
   * OPTIONAL (EVENT_TIMING). Milliseconds between two completed events.
   * NOT_READY if either has not completed; INVALID_ARGUMENT if either was
   * never recorded.
   */
  omnirt_status (*event_elapsed_time)(omnirt_backend_state* state,
                                      omnirt_event* start, omnirt_event* end,
                                      float* milliseconds);

  /* --- OPTIONAL graph capture (GRAPH_CAPTURE) --------------------------- */

  /** OPTIONAL. Work enqueued on `stream` is recorded, not run, until end_capture. */
  omnirt_status (*stream_begin_capture)(omnirt_backend_state* state,
                                        omnirt_stream* stream);
  /** OPTIONAL. Ends capture and returns the captured work as a graph. */
  omnirt_status (*stream_end_capture)(omnirt_backend_state* state,
                                      omnirt_stream* stream,
                                      omnirt_graph** graph);
  /** OPTIONAL. Enqueues the whole graph on `stream`. */
  omnirt_status (*graph_launch)(omnirt_backend_state* state, omnirt_graph* graph,
                                omnirt_stream* stream);
  /** OPTIONAL. Destroys a graph. NULL is a no-op. */
  omnirt_status (*graph_destroy)(omnirt_backend_state* state,
                                 omnirt_graph* graph);

  /* --- OPTIONAL modules (MODULES, COMPILE) ------------------------------ */

  /**
   * OPTIONAL. Deserializes `source` and prepares it for `tier`
   * (OMNIRT_TIER_COMPILE or OMNIRT_TIER_EAGER; OVERRIDE is the host's, not
   * the plugin's) on `device`. `tag` names the module's role ("unet",
   * "rms_norm"); may be NULL. Unknown format: NOT_SUPPORTED. Corrupt bytes:
   * INVALID_ARGUMENT. The engine may be loaded lazily here (first use).
   */
  omnirt_status (*module_load)(omnirt_backend_state* state, int32_t device,
                               const omnirt_module_source* source,
                               int32_t tier, const char* tag,
                               omnirt_executable** executable);
  /**
   * OPTIONAL. Runs an executable. `inputs` is an array of num_inputs
   * DLTensors (borrowed for the call). On success writes up to
   * output_capacity owned tensors into `outputs` and their number into
   * *num_outputs; the caller releases each with its `deleter`. If the module
   * has more outputs than output_capacity, returns OUT_OF_RANGE with
   * *num_outputs set to the number needed and no outputs written. A wrong
   * input is INVALID_ARGUMENT naming the input, expected and actual.
   * Safe to call concurrently on one executable.
   *
   * Stream contract: the run is enqueued on `stream` (NULL: the device's
   * default stream) and may return before it completes. The inputs must stay
   * valid and unchanged, and the outputs must not be read, until the work
   * enqueued so far on that stream completes (see the file comment for how
   * to wait); an output's deleter may be called at any time after return.
   */
  omnirt_status (*executable_run)(omnirt_backend_state* state,
                                  omnirt_executable* executable,
                                  const DLTensor* inputs, size_t num_inputs,
                                  omnirt_stream* stream,
                                  DLManagedTensor** outputs,
                                  size_t output_capacity, size_t* num_outputs);
  /** OPTIONAL. Destroys an executable. NULL is a no-op. */
  omnirt_status (*executable_destroy)(omnirt_backend_state* state,
                                      omnirt_executable* executable);

  /* --- OPTIONAL named ops (NAMED_OPS) ----------------------------------- */

  /**
   * OPTIONAL (NAMED_OPS). The op sets this backend declares. *sets points to
   * a plugin-owned array valid as long as `state`; names are identifiers
   * (OMNIRT_TEXT_MAX_IDENTIFIER).
   */
  omnirt_status (*list_op_sets)(omnirt_backend_state* state,
                                const omnirt_op_set** sets, size_t* count);
  /**
   * OPTIONAL (NAMED_OPS). The ops this backend implements itself. *ops points
   * to a plugin-owned array valid as long as `state`. An op whose name is not
   * valid text of at most OMNIRT_TEXT_MAX_IDENTIFIER bytes is ignored.
   */
  omnirt_status (*list_ops)(omnirt_backend_state* state,
                            const omnirt_op_decl** ops, size_t* count);
  /**
   * OPTIONAL (NAMED_OPS). Runs named op `name` on DLPack tensors: reads `inputs`, writes
   * into the caller-allocated `outputs` (shapes set by the caller). Unknown
   * op: NOT_FOUND. Attributes are borrowed. Enqueued on `stream` (NULL: the
   * device's default stream) like executable_run: it may return before the
   * outputs are written, which they are in stream order.
   */
  omnirt_status (*op_run)(omnirt_backend_state* state, const char* name,
                          const DLTensor* inputs, size_t num_inputs,
                          DLTensor* outputs, size_t num_outputs,
                          const omnirt_op_attr* attrs, size_t num_attrs,
                          omnirt_stream* stream);

  /* ====================================================================== */
  /* ABI 1.1. The host reads a slot below only when the plugin's struct_size */
  /* covers it and the plugin's abi_version is 1.1 or newer; otherwise it   */
  /* treats the slot as NULL and the feature bit as clear.                  */
  /* ====================================================================== */

  /* --- OPTIONAL default stream (DEFAULT_STREAM) ------------------------- */

  /**
   * OPTIONAL (1.1). The stream that a NULL `stream` argument stands for on
   * `device`, as a handle that can be passed wherever a stream is taken
   * (event_record, stream_wait_event, stream_synchronize, stream_query, ...)
   * except stream_destroy. Work a slot enqueues "on NULL" is ordered on it,
   * so a caller can time or wait for such work. Owned by the backend; the
   * same handle for every call with one device; valid as long as `state`.
   */
  omnirt_status (*stream_get_default)(omnirt_backend_state* state, int32_t device,
                                      omnirt_stream** stream);

  /* --- OPTIONAL output names (OUTPUT_NAMES) ----------------------------- */

  /**
   * OPTIONAL (1.1). The name of `output`, one of the tensors executable_run of
   * `executable` returned: the key of a dict entry when the module returns a
   * dict, else "". A dict's entries are flattened in ascending byte order of
   * their keys, whatever order the module built it in, so that an output's
   * position is stable; keys of nested dicts are joined with '.'. *name is
   * text of at most OMNIRT_TEXT_MAX_IDENTIFIER bytes owned by the output:
   * valid until the output's deleter runs.
   * INVALID_ARGUMENT when `output` did not come from this executable.
   */
  omnirt_status (*output_name)(omnirt_backend_state* state, omnirt_executable* executable,
                               const DLManagedTensor* output, const char** name);

  /* --- OPTIONAL collectives (COLLECTIVES) ------------------------------- */
  /*
   * Communicators route to the vendor's collective library (NCCL, HCCL, CNCL,
   * gloo). Buffers are device memory of the backend on the communicator's
   * device; `count` is in elements of `dtype` (an omnirt_dtype), `op` an
   * omnirt_reduce_op. Every collective is enqueued on `stream` (NULL: the
   * default stream of the communicator's device) and follows the stream
   * contract of the file comment. Every rank must call the same collectives
   * in the same order with matching counts and dtypes; a mismatch the library
   * can detect is INVALID_ARGUMENT. A rank that does not join within the
   * communicator's time limit makes the others fail with TIMEOUT naming it.
   * Communicators may be used from any thread, but one communicator's
   * collectives must not be issued from two threads at once.
   */

  /**
   * OPTIONAL (1.1). Joins the group described by `args` as rank args->rank,
   * meeting the other ranks through args->store. Blocks until every rank
   * arrived (TIMEOUT naming the missing ranks after args->timeout_ms).
   */
  omnirt_status (*comm_create)(omnirt_backend_state* state,
                               const omnirt_comm_create_args* args, omnirt_comm** comm);
  /**
   * OPTIONAL (1.1). Makes a group of `num_devices` ranks in this process,
   * rank i on devices[i], and writes their communicators to comms[0..n).
   * Collectives on several of them from one thread must be issued between
   * group_start and group_end.
   */
  omnirt_status (*comm_create_local)(omnirt_backend_state* state, const int32_t* devices,
                                     size_t num_devices, omnirt_comm** comms);
  /** OPTIONAL (1.1). Waits for the communicator's enqueued work, then destroys it. NULL is a no-op. */
  omnirt_status (*comm_destroy)(omnirt_backend_state* state, omnirt_comm* comm);
  /** OPTIONAL (1.1). recv[i] = op over ranks of send[i], i < count, on every rank. send may equal recv. */
  omnirt_status (*all_reduce)(omnirt_backend_state* state, omnirt_comm* comm,
                              const void* send, void* recv, size_t count, int32_t dtype,
                              int32_t op, omnirt_stream* stream);
  /** OPTIONAL (1.1). recv[r * send_count + i] = send[i] of rank r, on every rank. */
  omnirt_status (*all_gather)(omnirt_backend_state* state, omnirt_comm* comm,
                              const void* send, void* recv, size_t send_count, int32_t dtype,
                              omnirt_stream* stream);
  /** OPTIONAL (1.1). recv[i] = op over ranks of send[rank * recv_count + i], i < recv_count. */
  omnirt_status (*reduce_scatter)(omnirt_backend_state* state, omnirt_comm* comm,
                                  const void* send, void* recv, size_t recv_count,
                                  int32_t dtype, int32_t op, omnirt_stream* stream);
  /** OPTIONAL (1.1). recv = send of rank `root`, on every rank (send is read on root only). */
  omnirt_status (*broadcast)(omnirt_backend_state* state, omnirt_comm* comm,
                             const void* send, void* recv, size_t count, int32_t dtype,
                             int32_t root, omnirt_stream* stream);
  /** OPTIONAL (1.1). Sends `count` elements to rank `peer`, which calls recv. */
  omnirt_status (*send)(omnirt_backend_state* state, omnirt_comm* comm, const void* buffer,
                        size_t count, int32_t dtype, int32_t peer, omnirt_stream* stream);
  /** OPTIONAL (1.1). Receives `count` elements from rank `peer`, which calls send. */
  omnirt_status (*recv)(omnirt_backend_state* state, omnirt_comm* comm, void* buffer,
                        size_t count, int32_t dtype, int32_t peer, omnirt_stream* stream);
  /**
   * OPTIONAL (1.1). Collectives the calling thread issues until group_end
   * are launched together (NCCL's ncclGroupStart): needed to drive several
   * local communicators, or a send and a recv, from one thread. Groups nest.
   */
  omnirt_status (*group_start)(omnirt_backend_state* state);
  /** OPTIONAL (1.1). Ends the calling thread's group and launches its collectives. */
  omnirt_status (*group_end)(omnirt_backend_state* state);
  /**
   * OPTIONAL (1.1). Writes the collective library and its version, NUL-
   * terminated text ("NCCL 2.21.5", "gloo (TCP)"), into `text` (capacity
   * bytes, cut on a character boundary). May load the library (first real
   * use); UNAVAILABLE with the reason when it is absent. Called even while
   * OMNIRT_FEATURE_COLLECTIVES is clear (the host asks it why), so a backend
   * that implements collectives fills it whether or not its library is here.
   */
  omnirt_status (*collectives_library)(omnirt_backend_state* state, char* text,
                                       size_t capacity);
  /**
   * OPTIONAL (1.1). Whether `comm` is healthy (NCCL's ncclCommGetAsyncError):
   * OK while none of its collectives has failed; otherwise the status of the
   * first failure (TIMEOUT naming the missing ranks, ...) with its message, on
   * every call. A collective enqueued on a stream fails after its call
   * returned, so this is how a caller learns of it; a synchronous failure
   * counts too. A failed communicator stays failed (its later collectives
   * return the same failure): destroy it and make a new one. Never waits.
   */
  omnirt_status (*comm_get_async_error)(omnirt_backend_state* state, omnirt_comm* comm);

  /* --- OPTIONAL engine preparation (ENGINE_PREPARE) --------------------- */

  /**
   * OPTIONAL (1.1). Loads the engine that module_load would load on first
   * use for modules of `format` (loading libtorch takes most of a second),
   * so that the host times it as a stage of its own instead of inside the
   * first tier it tries. Idempotent: once the engine is loaded, returns at
   * once. Writes what is loaded ("libtorch 1.13.0"), NUL-terminated UTF-8,
   * into `description` (capacity bytes, truncated). NOT_SUPPORTED for a
   * format the backend does not load; UNAVAILABLE with the reason when the
   * engine cannot be loaded here (module_load would then fail alike).
   */
  omnirt_status (*engine_prepare)(omnirt_backend_state* state, const char* format,
                                  char* description, size_t capacity);
} omnirt_backend_vtable;

/**
 * The entry point's type. Called once per dlopen, before any other slot.
 * Returns the vtable, or NULL to refuse (after host->set_error() with the
 * reason, e.g. INCOMPATIBLE when no version in the host's range is spoken).
 * Must not load a vendor SDK or an engine, and must not throw.
 */
typedef const omnirt_backend_vtable* (*omnirt_backend_entry_fn)(
    const omnirt_backend_entry_args* args);

OMNIRT_EXTERN_C_END

#endif /* OMNIRT_BACKEND_H_ */
