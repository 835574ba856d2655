/*
 * OmniRT C ABI — value types shared by the backend contract (backend.h) and
 * the embedder API (host.h).
 *
 * Every struct that crosses the ABI starts with `size_t struct_size`, which the
 * writer of the struct sets to sizeof() as it knows it. Fields are only ever
 * appended; the layouts of 1.0 are frozen by static_asserts in
 * tests/abi/layout_test.c. A reader uses only the fields that lie inside both
 * its own sizeof() and the struct_size it was handed.
 *
 * Tensors cross as DLPack (DLTensor / DLManagedTensor, DLPack >= 0.6).
 */
#ifndef OMNIRT_TYPES_H_
#define OMNIRT_TYPES_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#include "omnirt/status.h"

OMNIRT_EXTERN_C_BEGIN

/* ------------------------------------------------------------------------ */
/* Opaque handles owned by a plugin. The host never looks inside them.      */
/* ------------------------------------------------------------------------ */

/** A plugin's per-host backend instance, made by the `create` slot. */
typedef struct omnirt_backend_state omnirt_backend_state;
/** An ordered queue of asynchronous work on one device of one backend. */
typedef struct omnirt_stream omnirt_stream;
/** A marker recorded on a stream; can be waited on and timed. */
typedef struct omnirt_event omnirt_event;
/** Work captured from a stream, replayable as a whole (graph capture). */
typedef struct omnirt_graph omnirt_graph;
/** A module deserialized and prepared by a backend's engine, ready to run. */
typedef struct omnirt_executable omnirt_executable;
/** ABI 1.1. One rank's membership in a group of ranks that run collectives together. */
typedef struct omnirt_comm omnirt_comm;

/* ------------------------------------------------------------------------ */
/* Enumerations (int32_t on the wire; values stable, only appended).        */
/* ------------------------------------------------------------------------ */

/** Direction of a memory copy. Values match CUDA's cudaMemcpyKind. */
enum omnirt_memcpy_kind {
  OMNIRT_MEMCPY_HOST_TO_HOST = 0,
  OMNIRT_MEMCPY_HOST_TO_DEVICE = 1,
  OMNIRT_MEMCPY_DEVICE_TO_HOST = 2,
  OMNIRT_MEMCPY_DEVICE_TO_DEVICE = 3
};

/** Element types. A backend advertises a bit (1 << value) per supported type. */
enum omnirt_dtype {
  OMNIRT_DTYPE_F32 = 0,
  OMNIRT_DTYPE_F16 = 1,
  OMNIRT_DTYPE_BF16 = 2,
  OMNIRT_DTYPE_F64 = 3,
  OMNIRT_DTYPE_I8 = 4,
  OMNIRT_DTYPE_I16 = 5,
  OMNIRT_DTYPE_I32 = 6,
  OMNIRT_DTYPE_I64 = 7,
  OMNIRT_DTYPE_U8 = 8,
  /** DLPack {OMNIRT_DL_BOOL, 8, 1}: one byte per element, 0 or 1 (see OMNIRT_DL_BOOL). */
  OMNIRT_DTYPE_BOOL = 9,
  OMNIRT_DTYPE_COUNT_1_0 = 10 /**< number of dtypes known to ABI 1.0 */
};

/**
 * ABI 1.1. DLPack type code of bool tensors: kDLBool of DLPack >= 0.8, which
 * DLPack 0.6 (the oldest dlpack.h OmniRT builds with) does not name. A bool
 * tensor is {OMNIRT_DL_BOOL, 8, 1}: one byte per element, 0 or 1, as
 * PyTorch 2.x, NumPy and JAX exchange bool through DLPack. Backends produce
 * bool outputs in this form; as inputs they also take {kDLUInt, 1, 1} with
 * one byte per element, the older convention (TVM, OmniRT before 1.1).
 */
#define OMNIRT_DL_BOOL 6

/** Severity for omnirt_host_services::log and the host's logger. */
enum omnirt_log_level {
  OMNIRT_LOG_TRACE = 0,
  OMNIRT_LOG_DEBUG = 1,
  OMNIRT_LOG_INFO = 2,
  OMNIRT_LOG_WARN = 3,
  OMNIRT_LOG_ERROR = 4,
  OMNIRT_LOG_OFF = 6
};

/**
 * Optional features. A backend sets a bit in omnirt_capabilities::features
 * exactly when it implements the feature; when the bit is clear, the matching
 * slots are NULL or return OMNIRT_STATUS_NOT_SUPPORTED. The conformance kit
 * checks both directions.
 */
#define OMNIRT_FEATURE_HOST_ALLOC (1ull << 0)      /**< malloc_host / free_host (pinned) */
#define OMNIRT_FEATURE_ASYNC_COPY (1ull << 1)      /**< memcpy_async, memset_async */
#define OMNIRT_FEATURE_STREAM_ORDERED_ALLOC (1ull << 2) /**< malloc_async / free_async */
#define OMNIRT_FEATURE_STREAMS (1ull << 3)         /**< stream create/destroy/synchronize/query */
#define OMNIRT_FEATURE_EVENTS (1ull << 4)          /**< event create/destroy/record/query/synchronize */
#define OMNIRT_FEATURE_EVENT_TIMING (1ull << 5)    /**< event_elapsed_time */
#define OMNIRT_FEATURE_STREAM_WAIT_EVENT (1ull << 6) /**< stream_wait_event */
#define OMNIRT_FEATURE_MEM_INFO (1ull << 7)        /**< mem_get_info */
#define OMNIRT_FEATURE_MEMORY_STATS (1ull << 8)    /**< memory_stats / reset_memory_stats */
#define OMNIRT_FEATURE_GRAPH_CAPTURE (1ull << 9)   /**< stream capture, graph launch/destroy */
#define OMNIRT_FEATURE_MODULES (1ull << 10)        /**< module_load / executable_run */
#define OMNIRT_FEATURE_COMPILE (1ull << 11)        /**< module_load with OMNIRT_TIER_COMPILE */
#define OMNIRT_FEATURE_NAMED_OPS (1ull << 12)      /**< list_ops / op_run */
#define OMNIRT_FEATURE_PEER_COPY (1ull << 13)      /**< device-to-device copies across devices */
/* ABI 1.1. The host clears these bits for a plugin of ABI 1.0, whatever it reports. */
#define OMNIRT_FEATURE_DEFAULT_STREAM (1ull << 14) /**< 1.1: stream_get_default */
#define OMNIRT_FEATURE_OUTPUT_NAMES (1ull << 15)   /**< 1.1: output_name (dict outputs' keys) */
#define OMNIRT_FEATURE_COLLECTIVES (1ull << 16)    /**< 1.1: communicators and collectives */
#define OMNIRT_FEATURE_ENGINE_PREPARE (1ull << 17) /**< 1.1: engine_prepare */
/** Every feature bit ABI 1.0 defines. */
#define OMNIRT_FEATURES_1_0 ((1ull << 14) - 1)
/** Every feature bit ABI 1.1 defines. */
#define OMNIRT_FEATURES_1_1 ((1ull << 18) - 1)

/** Tier of the wrap_module fallback chain a module is prepared for. */
enum omnirt_tier {
  /** Backend-specific compilation (freeze+optimize, graph capture, ...). */
  OMNIRT_TIER_COMPILE = 0,
  /** A hand-written kernel registered for the module's tag. */
  OMNIRT_TIER_OVERRIDE = 1,
  /** The module as it is, run by the engine without compilation. */
  OMNIRT_TIER_EAGER = 2
};

/** ABI 1.1. Reduction of a collective (all_reduce, reduce_scatter). */
enum omnirt_reduce_op {
  OMNIRT_REDUCE_SUM = 0,
  OMNIRT_REDUCE_PROD = 1,
  OMNIRT_REDUCE_MIN = 2,
  OMNIRT_REDUCE_MAX = 3,
  /** Sum divided by the number of ranks (integer types: truncated toward zero). */
  OMNIRT_REDUCE_AVG = 4
};

/* ------------------------------------------------------------------------ */
/* Sized structs.                                                           */
/* ------------------------------------------------------------------------ */

/**
 * ABI 1.1. A module format a backend knows of but cannot load here, and why
 * (omnirt_capabilities::unavailable_module_formats). Both strings are owned
 * by the plugin and live as long as the backend state; neither is NULL. The
 * format is text of at most OMNIRT_TEXT_MAX_TAG bytes, the reason of at most
 * OMNIRT_TEXT_MAX_MESSAGE (backend.h, "Text").
 */
typedef struct omnirt_module_format_unavailable {
  /** Format tag, e.g. "aoti". */
  const char* format;
  /**
   * What is missing, for a person: "the cpu engine's libtorch 1.13.1 has no
   * AOTInductor package loader (needs PyTorch >= 2.6)".
   */
  const char* reason;
} omnirt_module_format_unavailable;

/** What a backend can do. Filled by the get_capabilities slot. */
typedef struct omnirt_capabilities {
  /** Set by the caller to sizeof(omnirt_capabilities) before the call. */
  size_t struct_size;
  /**
   * DLPack device type of this backend's device memory: kDLCPU, kDLCUDA, or
   * kDLExtDev for vendors without their own DLPack code (see `vendor`).
   */
  int32_t dl_device_type;
  /** Number of devices visible now (0 when unavailable). */
  int32_t device_count;
  /** OMNIRT_FEATURE_* bits. */
  uint64_t features;
  /** Bit (1 << omnirt_dtype) per element type the backend computes with. */
  uint64_t dtypes;
  /**
   * Short vendor tag, e.g. "cpu", "nvidia", "huawei-ascend", "cambricon". For
   * kDLExtDev backends this tag says whose memory a DLTensor points to.
   * Static string owned by the plugin; never NULL. Text of at most
   * OMNIRT_TEXT_MAX_TAG bytes (backend.h, "Text").
   */
  const char* vendor;
  /**
   * Module formats the engine accepts (e.g. "torchscript"). Array and strings
   * are owned by the plugin and live as long as the backend state. May be
   * NULL when num_module_formats is 0. Each is text of at most
   * OMNIRT_TEXT_MAX_TAG bytes. (From omnirt_get_capabilities: host-owned
   * copies, valid as long as the host.)
   */
  const char* const* module_formats;
  /** Length of module_formats; at most OMNIRT_MAX_PLUGIN_LIST (backend.h). */
  size_t num_module_formats;
  /**
   * ABI 1.1. Module formats the backend knows of but cannot load here, each
   * with the reason (an engine built without the library the format needs,
   * a library too old); no format is in both lists. wrap_module of such a
   * format fails with NOT_SUPPORTED giving the reason. Array owned by the
   * plugin, living as long as the backend state. May be NULL when
   * num_unavailable_module_formats is 0. The host reads neither field from a
   * plugin of ABI 1.0.
   */
  const omnirt_module_format_unavailable* unavailable_module_formats;
  /** ABI 1.1. Length of unavailable_module_formats; at most OMNIRT_MAX_PLUGIN_LIST. */
  size_t num_unavailable_module_formats;
} omnirt_capabilities;

/** One device of a backend. Filled by the get_device_info slot. */
typedef struct omnirt_device_info {
  /** Set by the caller to sizeof(omnirt_device_info) before the call. */
  size_t struct_size;
  /** Index of the device within its backend, 0-based. */
  int32_t index;
  /** DLPack device type of memory on this device. */
  int32_t dl_device_type;
  /** Human-readable name, NUL-terminated ("NVIDIA H100 80GB HBM3"). */
  char name[128];
  /** Architecture tag, NUL-terminated ("sm_90", "x86_64", "Ascend910B"). */
  char arch[32];
  /** Total device memory in bytes; 0 if unknown. */
  uint64_t total_memory_bytes;
  /** Compute units (SMs, AI cores, CPU cores); 0 if unknown. */
  int32_t compute_units;
} omnirt_device_info;

/** Bits of omnirt_memory_stats::known, one per field the backend fills. */
#define OMNIRT_STAT_ALLOCATED_BYTES (1u << 0)
#define OMNIRT_STAT_PEAK_BYTES (1u << 1)
#define OMNIRT_STAT_RESERVED_BYTES (1u << 2)
#define OMNIRT_STAT_ALLOC_COUNT (1u << 3)
#define OMNIRT_STAT_FREE_COUNT (1u << 4)
/**
 * ABI 1.1. Not a field: the figures include the memory the backend's module
 * engine allocates for its modules (weights, intermediates, outputs). When
 * clear on a backend with OMNIRT_FEATURE_MODULES, that memory is left out and
 * unknown, so the figures describe only what was allocated through the
 * memory slots. The host clears it for plugins of ABI 1.0.
 */
#define OMNIRT_STAT_MODULE_MEMORY (1u << 5)
/** Every omnirt_memory_stats::known bit ABI 1.0 defines. */
#define OMNIRT_STATS_1_0 ((1u << 5) - 1)
/** Every omnirt_memory_stats::known bit ABI 1.1 defines. */
#define OMNIRT_STATS_1_1 ((1u << 6) - 1)

/**
 * Memory statistics of one device, in bytes and counts since creation or the
 * last reset_memory_stats. A field is meaningful only when its
 * OMNIRT_STAT_* bit is set in `known`.
 */
typedef struct omnirt_memory_stats {
  /** Set by the caller to sizeof(omnirt_memory_stats) before the call. */
  size_t struct_size;
  /** OMNIRT_STAT_* bits: which fields below the backend knows. */
  uint32_t known;
  /** Bytes currently handed out to callers (as requested, not rounded). */
  uint64_t allocated_bytes;
  /** Highest allocated_bytes since creation or last reset. */
  uint64_t peak_bytes;
  /** Bytes held from the system/driver, including caches and rounding. */
  uint64_t reserved_bytes;
  /** Successful allocations since creation or last reset. */
  uint64_t alloc_count;
  /** Frees since creation or last reset. */
  uint64_t free_count;
} omnirt_memory_stats;

/**
 * A serialized module handed to a backend's engine. Exactly one of
 * (data, size) or path is set. The bytes need only live for the duration of
 * the call that receives them.
 */
typedef struct omnirt_module_source {
  /** sizeof(omnirt_module_source). */
  size_t struct_size;
  /** Format tag, e.g. "torchscript". Never NULL. */
  const char* format;
  /** Serialized bytes, or NULL when `path` is used. */
  const void* data;
  /** Length of data in bytes. */
  size_t size;
  /** Path of a file holding the module, or NULL when `data` is used. */
  const char* path;
} omnirt_module_source;

/** A named set of ops at a version ("omnirt.nn", 1). */
typedef struct omnirt_op_set {
  /** Static string owned by the plugin; at most OMNIRT_TEXT_MAX_IDENTIFIER bytes. */
  const char* name;
  /** Version of the op set. */
  int32_t version;
} omnirt_op_set;

/** One named op a backend implements. Arrays of these are plugin-owned. */
typedef struct omnirt_op_decl {
  /**
   * Op name, e.g. "rms_norm". Static string owned by the plugin; at most
   * OMNIRT_TEXT_MAX_IDENTIFIER bytes.
   */
  const char* name;
  /** Name of the op set the op belongs to (same bound). */
  const char* op_set;
  /** Number of input tensors the op takes. */
  int32_t num_inputs;
  /** Number of output tensors the op writes. */
  int32_t num_outputs;
} omnirt_op_decl;

/** A named scalar attribute of an op call ("eps" = 1e-6, "dim" = -1). */
typedef struct omnirt_op_attr {
  /** Attribute name; borrowed for the duration of the call. */
  const char* name;
  /** Value. Integer attributes are passed as exact doubles. */
  double value;
} omnirt_op_attr;

/* ------------------------------------------------------------------------ */
/* ABI 1.1: rendezvous for collectives.                                     */
/* ------------------------------------------------------------------------ */

/**
 * A key-value store that the ranks of a communicator share, in the way of
 * PJRT's KeyValueStore: plugins exchange through it whatever their collective
 * library needs to connect (NCCL's unique id, gloo's addresses). Provided by
 * the embedder, or made by omnirt_file_store_create (host.h) for processes
 * of one machine or a shared filesystem. Every callback is thread-safe and may
 * be called from any thread, by several ranks of one process at once. Keys
 * and values are opaque to the host.
 */
typedef struct omnirt_kv_store {
  /** sizeof(omnirt_kv_store) as its maker knows it. */
  size_t struct_size;
  /** Passed unchanged to every callback. */
  void* user_data;
  /**
   * Stores `size` bytes of `value` under the NUL-terminated `key`, replacing
   * an earlier value. Once put returns OK, get() of the key on every rank
   * sees the value.
   */
  omnirt_status (*put)(void* user_data, const char* key, const void* value, size_t size);
  /**
   * Waits up to `timeout_ms` for `key` to exist, then copies its value into
   * `value` (up to `capacity` bytes) and writes its full size into *size.
   * TIMEOUT when the key did not appear in time; OUT_OF_RANGE (with *size
   * set) when `capacity` is too small.
   */
  omnirt_status (*get)(void* user_data, const char* key, void* value, size_t capacity,
                       size_t* size, uint32_t timeout_ms);
  /**
   * Waits up to `timeout_ms` until every one of `num_keys` keys exists.
   * TIMEOUT when some did not appear in time.
   */
  omnirt_status (*wait)(void* user_data, const char* const* keys, size_t num_keys,
                        uint32_t timeout_ms);
} omnirt_kv_store;

/** ABI 1.1. How to make the communicator of one rank (comm_create). Borrowed for the call. */
typedef struct omnirt_comm_create_args {
  /** sizeof(omnirt_comm_create_args). */
  size_t struct_size;
  /** Number of ranks in the group, >= 1. */
  int32_t nranks;
  /** This caller's rank in [0, nranks). */
  int32_t rank;
  /** Device of the backend this rank's buffers live on. */
  int32_t device;
  /**
   * Time limit in milliseconds for the rendezvous and for each later
   * collective to be joined by every rank; 0 means 60000. A rank that dies or
   * never arrives makes the others fail with TIMEOUT naming it, not hang.
   */
  uint32_t timeout_ms;
  /**
   * The store the ranks share; never NULL. It must stay valid, its callbacks
   * working, until the communicator is destroyed: a backend may use it after
   * creation too (the cpu backend does, to tell which rank a failed
   * collective is missing).
   */
  const omnirt_kv_store* store;
  /**
   * Prefix of every key this communicator puts in the store, so that several
   * communicators share one store ("job7/tp0/"). NUL-terminated; may be "".
   */
  const char* key_prefix;
} omnirt_comm_create_args;

OMNIRT_EXTERN_C_END

#endif /* OMNIRT_TYPES_H_ */
