/*
 * OmniRT C ABI — the embedder API of libomnirt.so.
 *
 * An embedder creates a host, which discovers and loads backend plugins, then
 * picks a backend (by name or "auto") and routes calls through it. Every
 * function returns an omnirt_status; on failure the detail is available from
 * omnirt_last_error() on the same thread. No function throws or aborts.
 *
 * Threads: a host may be used from any number of threads at once, except
 * omnirt_host_destroy, which must not race with other calls on that host.
 * Handles (omnirt_backend*) stay valid until their host is destroyed.
 *
 * Work is stream-ordered (backend.h, file comment): omnirt_module_run,
 * omnirt_op_run, async copies and collectives enqueue on a stream (NULL: the
 * device's default stream) and may return before the device finishes. Wait
 * with omnirt_stream_synchronize on the stream (for NULL, the handle
 * omnirt_stream_get_default returns), an event recorded after the work, or
 * omnirt_device_synchronize, which works with every backend.
 */
#ifndef OMNIRT_HOST_H_
#define OMNIRT_HOST_H_

#include "omnirt/status.h"
#include "omnirt/types.h"
#include "omnirt/version.h"

OMNIRT_EXTERN_C_BEGIN

/** A host: the set of discovered plugins and their backends. */
typedef struct omnirt_host omnirt_host;
/** A loaded backend of a host. Owned by the host; never freed by the caller. */
typedef struct omnirt_backend omnirt_backend;

/* ------------------------------------------------------------------------ */
/* Errors and versions.                                                     */
/* ------------------------------------------------------------------------ */

/** Detail of the last failed call on the calling thread. */
typedef struct omnirt_error_info {
  /** sizeof(omnirt_error_info) as the library knows it. */
  size_t struct_size;
  /** The status the failed call returned. */
  omnirt_status status;
  /** The vendor's native error code, or 0. */
  int64_t native_code;
  /** Human-readable message; never NULL (may be ""). */
  const char* message;
  /** Name of the backend that failed, or "" when the host itself failed. */
  const char* backend;
} omnirt_error_info;

/**
 * Detail of the most recent failed omnirt_* call on this thread. Never NULL.
 * A successful call does not clear it. The pointer and its strings stay valid
 * until the next failing omnirt_* call on this thread.
 */
OMNIRT_EXPORT const omnirt_error_info* omnirt_last_error(void);

/** Stable upper-case name of a status ("NOT_SUPPORTED"). Never NULL. */
OMNIRT_EXPORT const char* omnirt_status_name(omnirt_status status);

/** Packed ABI version of this libomnirt.so (OMNIRT_MAKE_VERSION). */
OMNIRT_EXPORT uint32_t omnirt_abi_version(void);

/** Version string of this libomnirt.so build ("0.1.0"). Static. */
OMNIRT_EXPORT const char* omnirt_library_version(void);

/* ------------------------------------------------------------------------ */
/* Host lifecycle.                                                          */
/* ------------------------------------------------------------------------ */

/** Skip OMNIRT_PLUGIN_PATH and OMNIRT_CONFIG (and other environment input). */
#define OMNIRT_HOST_IGNORE_ENVIRONMENT (1u << 0)
/** Skip the installed plugin directory. */
#define OMNIRT_HOST_SKIP_INSTALLED_DIR (1u << 1)

/**
 * ABI 1.1. Whether plugins are vetted in a child process before they are
 * loaded into this one (omnirt_host_options::vetting; docs/vetting.md).
 */
enum omnirt_vetting {
  /** Not chosen here: OMNIRT_VETTING, else the configuration's `vetting`, else NEW. */
  OMNIRT_VETTING_DEFAULT = 0,
  /** Load every candidate in-process without vetting. */
  OMNIRT_VETTING_OFF = 1,
  /** Vet candidates the verdict cache does not know (new or changed files). */
  OMNIRT_VETTING_NEW = 2,
  /** Vet every candidate at every host creation; the cache is only written. */
  OMNIRT_VETTING_ALWAYS = 3
};

/**
 * How to make a host. Every pointer is borrowed for the duration of create.
 * struct_size may be that of ABI 1.0 (40 bytes): the 1.1 fields then take
 * their defaults.
 */
typedef struct omnirt_host_options {
  /** sizeof(omnirt_host_options). */
  size_t struct_size;
  /**
   * YAML configuration file, or NULL. When NULL, OMNIRT_CONFIG names one (if
   * set and the environment is not ignored). A file that cannot be read or
   * parsed fails omnirt_host_create with INVALID_ARGUMENT naming file and line.
   */
  const char* config_path;
  /**
   * Plugin files or directories searched first, in order. May be NULL when
   * num_plugin_paths is 0.
   */
  const char* const* plugin_paths;
  /** Length of plugin_paths. */
  size_t num_plugin_paths;
  /** OMNIRT_HOST_* flags. */
  uint32_t flags;
  /* ABI 1.1 (bytes 36-39 are 1.0's tail padding and stay unused). */
  /**
   * Directory of the vetting verdict cache, or NULL: OMNIRT_VETTING_CACHE_DIR,
   * else the configuration's `vetting_cache_dir`, else
   * $XDG_CACHE_HOME/omnirt, ~/.cache/omnirt, or the passwd home's
   * .cache/omnirt. Created 0700 when missing; refused (vetting then goes
   * without a cache) when it or the file in it is writable by others or owned
   * by another user.
   */
  const char* vetting_cache_dir;
  /** An omnirt_vetting; OMNIRT_VETTING_DEFAULT (0) when zero-initialized. */
  int32_t vetting;
  /**
   * Time limit of one candidate's vetting in milliseconds; 0: OMNIRT_VETTING_TIME_LIMIT_MS,
   * else the configuration's `vetting_time_limit_ms`, else 10000. A child
   * still busy then is killed and the candidate rejected with TIMEOUT.
   */
  uint32_t vetting_time_limit_ms;
} omnirt_host_options;

/**
 * Creates a host and loads every plugin found (see the search order in the
 * README). A plugin that fails to load never fails this call: it is recorded
 * as a rejected candidate. `options` may be NULL (defaults). Fails only on bad
 * options or a bad configuration file.
 */
OMNIRT_EXPORT omnirt_status omnirt_host_create(const omnirt_host_options* options,
                                               omnirt_host** host);

/** Destroys a host, its backends and unloads its plugins. Accepts NULL. */
OMNIRT_EXPORT void omnirt_host_destroy(omnirt_host* host);

/* ------------------------------------------------------------------------ */
/* Discovery records.                                                       */
/* ------------------------------------------------------------------------ */

/** Where a candidate or search directory came from. */
enum omnirt_path_source {
  OMNIRT_SOURCE_API = 0,         /**< omnirt_host_options::plugin_paths */
  OMNIRT_SOURCE_ENVIRONMENT = 1, /**< OMNIRT_PLUGIN_PATH */
  OMNIRT_SOURCE_CONFIG = 2,      /**< plugin_dirs in the YAML config */
  OMNIRT_SOURCE_INSTALLED = 3    /**< the installed plugin directory */
};

/** How far a candidate got while loading. Each stage implies the earlier ones. */
enum omnirt_load_stage {
  OMNIRT_STAGE_FOUND = 0,       /**< file found and passed the path checks */
  OMNIRT_STAGE_DLOPEN = 1,      /**< dlopen succeeded */
  OMNIRT_STAGE_ENTRY_SYMBOL = 2,/**< entry symbol resolved */
  OMNIRT_STAGE_NEGOTIATE = 3,   /**< entry returned a vtable of a compatible version */
  OMNIRT_STAGE_VALIDATE = 4,    /**< vtable size, slots and name valid; instance created */
  OMNIRT_STAGE_AVAILABLE = 5    /**< is_available answered yes */
};

/** Lower-case name of an omnirt_load_stage ("entry_symbol"); "unknown" for
 *  any other value. Header-only, so that the host, its tools and embedders
 *  name stages alike without a library call. */
static inline const char* omnirt_load_stage_name(int32_t stage) {
  switch (stage) {
    case OMNIRT_STAGE_FOUND: return "found";
    case OMNIRT_STAGE_DLOPEN: return "dlopen";
    case OMNIRT_STAGE_ENTRY_SYMBOL: return "entry_symbol";
    case OMNIRT_STAGE_NEGOTIATE: return "negotiate";
    case OMNIRT_STAGE_VALIDATE: return "validate";
    case OMNIRT_STAGE_AVAILABLE: return "available";
    default: return "unknown";
  }
}

/** One directory in the search path (for `omnirt-probe --verbose`). */
typedef struct omnirt_search_dir {
  /** sizeof(omnirt_search_dir). */
  size_t struct_size;
  /** The directory or file as given (UTF-8; other bytes as \xNN). Owned by the host. */
  const char* path;
  /** An omnirt_path_source. */
  int32_t source;
  /** 1 if it was scanned, 0 if skipped. */
  int32_t searched;
  /** Why it was skipped, or what was found ("3 candidates"). Owned by the host. */
  const char* note;
} omnirt_search_dir;

/** ABI 1.1. What vetting in a child process made of a candidate. */
enum omnirt_vet_outcome {
  /** Not vetted: vetting is off, the candidate was refused before it, or the helper could not run. */
  OMNIRT_VET_NOT_VETTED = 0,
  /** The child loaded it as the host would and exited cleanly; then it was loaded here. */
  OMNIRT_VET_PASSED = 1,
  /** The child crashed, exited or ran past the time limit: never loaded here. */
  OMNIRT_VET_REJECTED = 2
};

/**
 * The diagnostic record of one candidate plugin file. Text in it is UTF-8:
 * bytes of a path that are not (a file name is any bytes) appear as \xNN.
 */
typedef struct omnirt_candidate {
  /** sizeof(omnirt_candidate). */
  size_t struct_size;
  /** Path as found. Owned by the host. */
  const char* path;
  /** Real path after resolving links ("" if it could not be resolved). */
  const char* real_path;
  /** An omnirt_path_source. */
  int32_t source;
  /** Furthest omnirt_load_stage reached. */
  int32_t stage;
  /** 1 when the plugin was loaded and has a backend (available or not). */
  int32_t loaded;
  /**
   * Status of the failure that stopped it: OK if loaded and available,
   * UNAVAILABLE if loaded but not available here.
   */
  omnirt_status status;
  /** Why it stopped (or why it is unavailable), else "". Owned by the host. */
  const char* reason;
  /** Backend name from the vtable, or "" if not reached. */
  const char* backend_name;
  /** Packed ABI version the plugin answered with, or 0. */
  uint32_t plugin_abi_version;
  /** Nanoseconds spent on this candidate (dlopen to is_available). */
  uint64_t load_time_ns;
  /** ABI 1.1. An omnirt_vet_outcome. */
  int32_t vet_outcome;
  /** ABI 1.1. 1 when the outcome came from the verdict cache, not from a child now. */
  int32_t vet_cached;
  /** ABI 1.1. Nanoseconds the vetting child took (the cached figure when vet_cached). */
  uint64_t vet_time_ns;
  /**
   * ABI 1.1. 1 when the file was left unloaded by choice, not for a fault:
   * the same file was found earlier on the search path, the configuration's
   * allow or deny list refused its name, or an earlier file already provides
   * its backend. `reason` says which; `loaded` is 0. 0 for every other
   * candidate, loaded or rejected.
   */
  int32_t skipped;
} omnirt_candidate;

/** Number of candidate files the host looked at (loaded or rejected). */
OMNIRT_EXPORT size_t omnirt_host_candidate_count(const omnirt_host* host);
/** Fills *out for candidate `index` (caller sets out->struct_size). */
OMNIRT_EXPORT omnirt_status omnirt_host_get_candidate(const omnirt_host* host,
                                                      size_t index,
                                                      omnirt_candidate* out);
/** Number of entries in the search path. */
OMNIRT_EXPORT size_t omnirt_host_search_dir_count(const omnirt_host* host);
/** Fills *out for search-path entry `index` (caller sets out->struct_size). */
OMNIRT_EXPORT omnirt_status omnirt_host_get_search_dir(const omnirt_host* host,
                                                       size_t index,
                                                       omnirt_search_dir* out);

/* ------------------------------------------------------------------------ */
/* Backends.                                                                */
/* ------------------------------------------------------------------------ */

/** Static facts about a loaded backend. */
typedef struct omnirt_backend_info {
  /** sizeof(omnirt_backend_info). */
  size_t struct_size;
  /** Backend name. Owned by the host. */
  const char* name;
  /** Plugin's version string. Owned by the host. */
  const char* plugin_version;
  /** Packed ABI version the plugin implements. */
  uint32_t abi_version;
  /** Path of the plugin file (UTF-8; other bytes as \xNN). Owned by the host. */
  const char* path;
  /** 1 if available here. */
  int32_t available;
  /** Why not available, or "". Owned by the host. */
  const char* unavailable_reason;
  /** Priority from configuration (higher is preferred by "auto"); default 0. */
  int32_t priority;
} omnirt_backend_info;

/** Number of loaded backends (available or not), in selection order. */
OMNIRT_EXPORT size_t omnirt_host_backend_count(const omnirt_host* host);
/** Backend at `index` in [0, omnirt_host_backend_count). */
OMNIRT_EXPORT omnirt_status omnirt_host_backend_at(const omnirt_host* host,
                                                   size_t index,
                                                   omnirt_backend** backend);
/**
 * Selects a backend. `name` NULL or "auto" picks the first available backend
 * in selection order (priority, then name). An unknown name is NOT_FOUND; a
 * name whose plugin was rejected returns the status and reason of its
 * diagnostic record; an unavailable backend is UNAVAILABLE with its reason.
 */
OMNIRT_EXPORT omnirt_status omnirt_host_get_backend(omnirt_host* host,
                                                    const char* name,
                                                    omnirt_backend** backend);
/** Facts about a backend (caller sets out->struct_size). */
OMNIRT_EXPORT omnirt_status omnirt_backend_get_info(const omnirt_backend* backend,
                                                    omnirt_backend_info* out);
/** The backend's capabilities (caller sets caps->struct_size). */
OMNIRT_EXPORT omnirt_status omnirt_get_capabilities(omnirt_backend* backend,
                                                    omnirt_capabilities* caps);
/** Number of devices. */
OMNIRT_EXPORT omnirt_status omnirt_get_device_count(omnirt_backend* backend,
                                                    int32_t* count);
/** One device's description (caller sets info->struct_size). */
OMNIRT_EXPORT omnirt_status omnirt_get_device_info(omnirt_backend* backend,
                                                   int32_t device,
                                                   omnirt_device_info* info);
/**
 * The op sets the backend declares (omnirt_backend_vtable::list_op_sets).
 * *sets points to an array owned by the backend, valid until the host is
 * destroyed; *count is its length. NOT_SUPPORTED when the backend declares
 * no op sets.
 */
OMNIRT_EXPORT omnirt_status omnirt_list_op_sets(omnirt_backend* backend,
                                                const omnirt_op_set** sets,
                                                size_t* count);

/* ------------------------------------------------------------------------ */
/* Routed memory, stream and event calls. Each forwards to the backend's    */
/* slot of the same name (see backend.h for semantics). An optional slot    */
/* the backend lacks yields NOT_SUPPORTED naming backend and call.          */
/* Streams, events and graphs belong to the backend that made them.         */
/* ------------------------------------------------------------------------ */

/** Device memory; see omnirt_backend_vtable::malloc_device. */
OMNIRT_EXPORT omnirt_status omnirt_malloc(omnirt_backend* backend, int32_t device,
                                          size_t size, void** ptr);
/** Frees device memory. NULL is a no-op. */
OMNIRT_EXPORT omnirt_status omnirt_free(omnirt_backend* backend, int32_t device,
                                        void* ptr);
/** Pinned host memory. */
OMNIRT_EXPORT omnirt_status omnirt_malloc_host(omnirt_backend* backend, size_t size,
                                               void** ptr);
/** Frees pinned host memory. NULL is a no-op. */
OMNIRT_EXPORT omnirt_status omnirt_free_host(omnirt_backend* backend, void* ptr);
/** Stream-ordered allocation. */
OMNIRT_EXPORT omnirt_status omnirt_malloc_async(omnirt_backend* backend, size_t size,
                                                omnirt_stream* stream, void** ptr);
/** Stream-ordered free. */
OMNIRT_EXPORT omnirt_status omnirt_free_async(omnirt_backend* backend, void* ptr,
                                              omnirt_stream* stream);
/** Synchronous copy; `kind` is an omnirt_memcpy_kind. */
OMNIRT_EXPORT omnirt_status omnirt_memcpy(omnirt_backend* backend, void* dst,
                                          const void* src, size_t size,
                                          int32_t kind);
/** Asynchronous copy on `stream`. */
OMNIRT_EXPORT omnirt_status omnirt_memcpy_async(omnirt_backend* backend, void* dst,
                                                const void* src, size_t size,
                                                int32_t kind, omnirt_stream* stream);
/** Synchronous memset. */
OMNIRT_EXPORT omnirt_status omnirt_memset(omnirt_backend* backend, void* ptr,
                                          int32_t value, size_t size);
/** Asynchronous memset on `stream`. */
OMNIRT_EXPORT omnirt_status omnirt_memset_async(omnirt_backend* backend, void* ptr,
                                                int32_t value, size_t size,
                                                omnirt_stream* stream);
/** Free and total device memory in bytes. */
OMNIRT_EXPORT omnirt_status omnirt_mem_get_info(omnirt_backend* backend,
                                                int32_t device, size_t* free_bytes,
                                                size_t* total_bytes);
/** Memory statistics in bytes (caller sets stats->struct_size). */
OMNIRT_EXPORT omnirt_status omnirt_get_memory_stats(omnirt_backend* backend,
                                                    int32_t device,
                                                    omnirt_memory_stats* stats);
/** Resets peak and counters. */
OMNIRT_EXPORT omnirt_status omnirt_reset_memory_stats(omnirt_backend* backend,
                                                      int32_t device);
/** Waits for all work on a device. */
OMNIRT_EXPORT omnirt_status omnirt_device_synchronize(omnirt_backend* backend,
                                                      int32_t device);
/** Creates a stream. */
OMNIRT_EXPORT omnirt_status omnirt_stream_create(omnirt_backend* backend,
                                                 int32_t device,
                                                 omnirt_stream** stream);
/** Destroys a stream after its work completes. NULL is a no-op. */
OMNIRT_EXPORT omnirt_status omnirt_stream_destroy(omnirt_backend* backend,
                                                  omnirt_stream* stream);
/** Waits for a stream's work. */
OMNIRT_EXPORT omnirt_status omnirt_stream_synchronize(omnirt_backend* backend,
                                                      omnirt_stream* stream);
/** OK if idle, NOT_READY if busy. */
OMNIRT_EXPORT omnirt_status omnirt_stream_query(omnirt_backend* backend,
                                                omnirt_stream* stream);
/**
 * ABI 1.1. The stream a NULL stream argument stands for on `device`
 * (omnirt_backend_vtable::stream_get_default), so that work enqueued "on
 * NULL" can be timed with events and waited for. Owned by the backend; never
 * destroy it. NOT_SUPPORTED when the backend lacks OMNIRT_FEATURE_DEFAULT_STREAM
 * (every ABI 1.0 plugin): then omnirt_device_synchronize waits for such work.
 */
OMNIRT_EXPORT omnirt_status omnirt_stream_get_default(omnirt_backend* backend,
                                                      int32_t device,
                                                      omnirt_stream** stream);
/** Makes later work on `stream` wait for `event`. */
OMNIRT_EXPORT omnirt_status omnirt_stream_wait_event(omnirt_backend* backend,
                                                     omnirt_stream* stream,
                                                     omnirt_event* event);
/** Creates an event. */
OMNIRT_EXPORT omnirt_status omnirt_event_create(omnirt_backend* backend,
                                                int32_t device,
                                                omnirt_event** event);
/** Destroys an event. NULL is a no-op. */
OMNIRT_EXPORT omnirt_status omnirt_event_destroy(omnirt_backend* backend,
                                                 omnirt_event* event);
/** Records an event on a stream. */
OMNIRT_EXPORT omnirt_status omnirt_event_record(omnirt_backend* backend,
                                                omnirt_event* event,
                                                omnirt_stream* stream);
/** OK if complete, NOT_READY if not. */
OMNIRT_EXPORT omnirt_status omnirt_event_query(omnirt_backend* backend,
                                               omnirt_event* event);
/** Waits for an event. */
OMNIRT_EXPORT omnirt_status omnirt_event_synchronize(omnirt_backend* backend,
                                                     omnirt_event* event);
/** Milliseconds between two completed events. */
OMNIRT_EXPORT omnirt_status omnirt_event_elapsed_time(omnirt_backend* backend,
                                                      omnirt_event* start,
                                                      omnirt_event* end,
                                                      float* milliseconds);
/** Starts capturing work enqueued on `stream`. */
OMNIRT_EXPORT omnirt_status omnirt_stream_begin_capture(omnirt_backend* backend,
                                                        omnirt_stream* stream);
/** Ends a capture, returning the graph. */
OMNIRT_EXPORT omnirt_status omnirt_stream_end_capture(omnirt_backend* backend,
                                                      omnirt_stream* stream,
                                                      omnirt_graph** graph);
/** Enqueues a captured graph on `stream`. */
OMNIRT_EXPORT omnirt_status omnirt_graph_launch(omnirt_backend* backend,
                                                omnirt_graph* graph,
                                                omnirt_stream* stream);
/** Destroys a graph. NULL is a no-op. */
OMNIRT_EXPORT omnirt_status omnirt_graph_destroy(omnirt_backend* backend,
                                                 omnirt_graph* graph);

/* ------------------------------------------------------------------------ */
/* Modules: wrap_module with the compile -> override -> eager chain.        */
/* ------------------------------------------------------------------------ */

/** A wrapped module: the tier that was selected, ready to run. */
typedef struct omnirt_module omnirt_module;
/**
 * A run report: the timeline of wrap_module calls, stage timings, memory
 * statistics, outputs and errors of one run, rendered as JSON on demand.
 */
typedef struct omnirt_report omnirt_report;

/**
 * A hand-written kernel an embedder registers as the override tier for a tag.
 * Same contract as omnirt_backend_vtable::executable_run: reads `inputs`
 * (borrowed), writes up to output_capacity owned tensors into `outputs`
 * (released by the caller through their deleters) and their count into
 * *num_outputs. `user_data` is the pointer given at registration. Must be
 * thread-safe and must not throw.
 */
typedef omnirt_status (*omnirt_override_fn)(void* user_data, const DLTensor* inputs,
                                            size_t num_inputs, DLManagedTensor** outputs,
                                            size_t output_capacity, size_t* num_outputs);

/**
 * Registers `fn` as the override tier of `backend` for modules wrapped with
 * `tag`. An embedder override takes precedence over a named op of the same
 * name. ALREADY_EXISTS if the tag already has an embedder override.
 */
OMNIRT_EXPORT omnirt_status omnirt_register_override(omnirt_backend* backend,
                                                     const char* tag,
                                                     omnirt_override_fn fn,
                                                     void* user_data);
/** Removes an embedder override. NOT_FOUND if there is none for `tag`. */
OMNIRT_EXPORT omnirt_status omnirt_unregister_override(omnirt_backend* backend,
                                                       const char* tag);

/**
 * Skip the compile tier for this call. The process-wide switch, the
 * environment variable OMNIRT_DISABLE_COMPILE=1, is read once when a host is
 * created (like every OMNIRT_* variable): setting it later changes nothing for
 * hosts that exist. Use this flag to decide per call.
 */
#define OMNIRT_WRAP_DISABLE_COMPILE (1u << 0)

/** Options of omnirt_wrap_module. Pointers are borrowed for the call. */
typedef struct omnirt_wrap_options {
  /** sizeof(omnirt_wrap_options). */
  size_t struct_size;
  /** Device the module runs on. */
  int32_t device;
  /** OMNIRT_WRAP_* flags. */
  uint32_t flags;
  /**
   * Attributes passed to a named op when it serves as the override tier
   * (e.g. "eps"). May be NULL when num_attrs is 0.
   */
  const omnirt_op_attr* attrs;
  /** Length of attrs. */
  size_t num_attrs;
} omnirt_wrap_options;

/** One attempt of the fallback chain, as recorded in the timeline. */
typedef struct omnirt_attempt {
  /** sizeof(omnirt_attempt). */
  size_t struct_size;
  /** The omnirt_tier tried. */
  int32_t tier;
  /** 1 if the tier produced a runnable module. */
  int32_t ok;
  /** 1 for the one attempt whose result the module uses. */
  int32_t selected;
  /** Status of the attempt (OK when ok). */
  omnirt_status status;
  /** Why it failed or was skipped, or "". Owned by the module. */
  const char* reason;
  /** Wall time of the attempt in nanoseconds. */
  uint64_t elapsed_ns;
} omnirt_attempt;

/**
 * Wraps a module on `backend`: tries the tiers in the policy order for `tag`
 * (configuration `wrap_module.policies`, default compile -> override ->
 * eager; compile skipped when disabled by config, by OMNIRT_DISABLE_COMPILE=1
 * as it was when the host was created, or by OMNIRT_WRAP_DISABLE_COMPILE) and
 * keeps the first that succeeds. Every
 * attempt is timed and recorded; exactly one is selected. The override tier
 * is the embedder's override for `tag`, else the named op `tag` (the
 * backend's own kernel, else the base implementation). A named op serving
 * as a module allocates each run's outputs on `backend` (device memory,
 * shaped and typed like input 0, as many as the op declares) and frees them
 * through `backend` when their deleter runs. When every tier
 * fails, returns the last failure with a message listing every attempt, and
 * still appends the timeline entry to `report`. `tag` may be NULL ("" tag:
 * no override). `options` and `report` may be NULL.
 */
OMNIRT_EXPORT omnirt_status omnirt_wrap_module(omnirt_backend* backend,
                                               const omnirt_module_source* source,
                                               const char* tag,
                                               const omnirt_wrap_options* options,
                                               omnirt_report* report,
                                               omnirt_module** module);
/** Destroys a wrapped module. Accepts NULL. */
OMNIRT_EXPORT void omnirt_module_destroy(omnirt_module* module);
/**
 * ABI 1.1. The name of `output`, a tensor omnirt_module_run of `module`
 * returned: a dict output's key (entries come in ascending key order; see
 * omnirt_backend_vtable::output_name), or "" for a positional output and for
 * every output of a backend without OMNIRT_FEATURE_OUTPUT_NAMES. *name is
 * owned by the output and valid until its deleter runs.
 */
OMNIRT_EXPORT omnirt_status omnirt_module_output_name(const omnirt_module* module,
                                                      const DLManagedTensor* output,
                                                      const char** name);
/** Number of attempts in the module's timeline entry. */
OMNIRT_EXPORT size_t omnirt_module_attempt_count(const omnirt_module* module);
/** Attempt `index` of the module's timeline entry (caller sets out->struct_size). */
OMNIRT_EXPORT omnirt_status omnirt_module_get_attempt(const omnirt_module* module,
                                                      size_t index,
                                                      omnirt_attempt* out);
/**
 * Runs a wrapped module; same contract as omnirt_backend_vtable::executable_run
 * (owned outputs, OUT_OF_RANGE when output_capacity is too small). Inputs are
 * validated (device, dtype, shape) with INVALID_ARGUMENT naming the input,
 * the expected and the actual value. `stream` and `report` may be NULL.
 *
 * Without a report the run is enqueued on `stream` (NULL: the device's
 * default stream) and the call may return before it completes (file
 * comment). With a report the call returns only once the run's work has
 * completed, and the report records the run's wall time to completion, its
 * device time where the backend can time events on that stream, the outputs
 * summary and any error (docs/run-report.md). It waits as
 * omnirt::CompletionTimer (omnirt/cpp/host.hpp) does: for an event recorded
 * after the run, else for the stream, else, for a NULL stream on a backend
 * without OMNIRT_FEATURE_DEFAULT_STREAM (every ABI 1.0 plugin), with
 * omnirt_device_synchronize, which also waits for the device's other streams.
 * A wait that fails fails the call, with the outputs released.
 * Safe to call concurrently on one module.
 */
OMNIRT_EXPORT omnirt_status omnirt_module_run(omnirt_module* module,
                                              const DLTensor* inputs, size_t num_inputs,
                                              omnirt_stream* stream,
                                              DLManagedTensor** outputs,
                                              size_t output_capacity, size_t* num_outputs,
                                              omnirt_report* report);

/* ------------------------------------------------------------------------ */
/* Named ops.                                                               */
/* ------------------------------------------------------------------------ */

/**
 * Runs named op `name` on `backend`: the backend's own kernel if it has one,
 * else the base implementation (the cpu backend's reference kernels, for
 * tensors in host memory), else NOT_SUPPORTED naming backend and op. Outputs
 * are caller-allocated. `attrs` may be NULL; `stream` may be NULL.
 */
OMNIRT_EXPORT omnirt_status omnirt_op_run(omnirt_backend* backend, const char* name,
                                          const DLTensor* inputs, size_t num_inputs,
                                          DLTensor* outputs, size_t num_outputs,
                                          const omnirt_op_attr* attrs, size_t num_attrs,
                                          omnirt_stream* stream);
/**
 * Which backend would run op `name` for `backend`: *implementer is `backend`
 * itself, the base backend, or NULL with NOT_SUPPORTED.
 */
OMNIRT_EXPORT omnirt_status omnirt_op_resolve(omnirt_backend* backend, const char* name,
                                              omnirt_backend** implementer);
/**
 * Names of the ops `backend` overrides (implements itself and the base also
 * has). Writes up to `capacity` names (owned by the host, valid as long as the
 * host) and the total into *count.
 */
OMNIRT_EXPORT omnirt_status omnirt_list_overridden_ops(omnirt_backend* backend,
                                                       const char** names,
                                                       size_t capacity, size_t* count);

/* ------------------------------------------------------------------------ */
/* ABI 1.1: collectives. Each routes to the backend's slot of the same name  */
/* (backend.h has the semantics). Without OMNIRT_FEATURE_COLLECTIVES,       */
/* creating a communicator answers with the status and reason of the        */
/* backend's collectives_library (UNAVAILABLE: the library does not load;   */
/* NOT_SUPPORTED: it is not installed), or NOT_SUPPORTED when the backend   */
/* has no collectives. Communicators belong to the backend that made them   */
/* and must be destroyed before its host.                                   */
/* ------------------------------------------------------------------------ */

/** Joins a group of args->nranks ranks as args->rank (rendezvous through args->store). */
OMNIRT_EXPORT omnirt_status omnirt_comm_create(omnirt_backend* backend,
                                               const omnirt_comm_create_args* args,
                                               omnirt_comm** comm);
/** Makes one communicator per device of this process: rank i on devices[i]. */
OMNIRT_EXPORT omnirt_status omnirt_comm_create_local(omnirt_backend* backend,
                                                     const int32_t* devices,
                                                     size_t num_devices,
                                                     omnirt_comm** comms);
/** Waits for a communicator's work and destroys it. NULL is a no-op. */
OMNIRT_EXPORT omnirt_status omnirt_comm_destroy(omnirt_backend* backend, omnirt_comm* comm);
/** All-reduce of `count` elements; `dtype` an omnirt_dtype, `op` an omnirt_reduce_op. */
OMNIRT_EXPORT omnirt_status omnirt_all_reduce(omnirt_backend* backend, omnirt_comm* comm,
                                              const void* send, void* recv, size_t count,
                                              int32_t dtype, int32_t op,
                                              omnirt_stream* stream);
/** All-gather: every rank receives nranks * send_count elements. */
OMNIRT_EXPORT omnirt_status omnirt_all_gather(omnirt_backend* backend, omnirt_comm* comm,
                                              const void* send, void* recv,
                                              size_t send_count, int32_t dtype,
                                              omnirt_stream* stream);
/** Reduce-scatter: every rank receives its recv_count-element share of the reduction. */
OMNIRT_EXPORT omnirt_status omnirt_reduce_scatter(omnirt_backend* backend, omnirt_comm* comm,
                                                  const void* send, void* recv,
                                                  size_t recv_count, int32_t dtype,
                                                  int32_t op, omnirt_stream* stream);
/** Broadcast of `count` elements from rank `root`. */
OMNIRT_EXPORT omnirt_status omnirt_broadcast(omnirt_backend* backend, omnirt_comm* comm,
                                             const void* send, void* recv, size_t count,
                                             int32_t dtype, int32_t root,
                                             omnirt_stream* stream);
/** Point-to-point send to rank `peer`. */
OMNIRT_EXPORT omnirt_status omnirt_send(omnirt_backend* backend, omnirt_comm* comm,
                                        const void* buffer, size_t count, int32_t dtype,
                                        int32_t peer, omnirt_stream* stream);
/** Point-to-point receive from rank `peer`. */
OMNIRT_EXPORT omnirt_status omnirt_recv(omnirt_backend* backend, omnirt_comm* comm,
                                        void* buffer, size_t count, int32_t dtype,
                                        int32_t peer, omnirt_stream* stream);
/**
 * OK while `comm` is healthy; else the status and message of its first failed
 * collective, e.g. one enqueued on a stream that timed out after the call
 * returned (see omnirt_backend_vtable::comm_get_async_error). Never waits.
 */
OMNIRT_EXPORT omnirt_status omnirt_comm_get_async_error(omnirt_backend* backend,
                                                        omnirt_comm* comm);
/** Starts a group of collectives on the calling thread (see backend.h). */
OMNIRT_EXPORT omnirt_status omnirt_group_start(omnirt_backend* backend);
/** Ends the calling thread's group and launches its collectives. */
OMNIRT_EXPORT omnirt_status omnirt_group_end(omnirt_backend* backend);
/**
 * The backend's collective library and version ("NCCL 2.21.5"), copied
 * NUL-terminated into `text` (truncated on a character boundary). May load
 * the library. UNAVAILABLE with the reason when it cannot be loaded.
 */
OMNIRT_EXPORT omnirt_status omnirt_collectives_library(omnirt_backend* backend, char* text,
                                                       size_t capacity);

/**
 * A ready omnirt_kv_store for processes that share a filesystem (one machine,
 * or a shared mount): each key is a file in `directory` named after the key
 * (bytes other than [A-Za-z0-9_.-] escaped as %XX), written atomically
 * (temporary file + rename) and polled by readers, who back off from 0.1 to
 * 10 ms between looks. `directory` and its missing parents are created with
 * mode 0700; an existing one must be a directory this process can write, and
 * is refused when it is world-writable (anyone could plant a peer's address):
 * INVALID_ARGUMENT naming the reason. The store and its callbacks are valid
 * until omnirt_file_store_destroy; several processes (and threads) may use
 * stores on one directory at once. Files are left in the directory: the
 * embedder picks a fresh one per job (or a fresh key_prefix per communicator).
 * A key whose escaped name exceeds 255 bytes is INVALID_ARGUMENT at put/get.
 */
OMNIRT_EXPORT omnirt_status omnirt_file_store_create(const char* directory,
                                                     omnirt_kv_store** store);
/**
 * Destroys a store made by omnirt_file_store_create, leaving its files.
 * Accepts NULL; a store not made there is ignored. It must outlive every
 * communicator created with it.
 */
OMNIRT_EXPORT void omnirt_file_store_destroy(omnirt_kv_store* store);


/* ------------------------------------------------------------------------ */
/* Run reports.                                                             */
/* ------------------------------------------------------------------------ */

/** Creates an empty report for runs on `backend`; `run_id` NULL makes one up. */
OMNIRT_EXPORT omnirt_status omnirt_report_create(omnirt_backend* backend,
                                                 const char* run_id,
                                                 omnirt_report** report);
/** Destroys a report. Accepts NULL. */
OMNIRT_EXPORT void omnirt_report_destroy(omnirt_report* report);
/** Adds an embedder-measured stage ("preprocess", 1.25 ms) to the report. */
OMNIRT_EXPORT omnirt_status omnirt_report_add_stage(omnirt_report* report,
                                                    const char* name,
                                                    double milliseconds);
/** Records an error in the report (also done by calls that fail with it). */
OMNIRT_EXPORT omnirt_status omnirt_report_add_error(omnirt_report* report,
                                                    omnirt_status status,
                                                    const char* message);
/**
 * Renders the report as JSON (with "schema_version"), sampling the backend's
 * memory statistics now. *json is NUL-terminated, owned by the caller and
 * released with omnirt_string_free.
 */
OMNIRT_EXPORT omnirt_status omnirt_report_to_json(omnirt_report* report, char** json);
/** Frees a string returned by the library. Accepts NULL. */
OMNIRT_EXPORT void omnirt_string_free(char* str);

OMNIRT_EXTERN_C_END

#endif /* OMNIRT_HOST_H_ */
