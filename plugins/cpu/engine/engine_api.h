/*
 * The C interface between the cpu plugin and its TorchScript engine,
 * libomnirt_cpu_engine.so.
 *
 * The engine is a separate library so that the plugin links no libtorch:
 * probing stays fast, and the plugin dlopens the engine from its own folder on
 * the first module use only. Everything crosses as C (the engine and the
 * plugin may be built by different compilers), exceptions never do.
 *
 * Errors: a function that fails returns a non-OK omnirt_status and writes a
 * NUL-terminated message into `message` (capacity bytes, truncating).
 * Thread-safety: every function may be called from any thread, concurrently;
 * `run` concurrently on one module too.
 */
#ifndef OMNIRT_CPU_ENGINE_API_H_
#define OMNIRT_CPU_ENGINE_API_H_

#include "omnirt/types.h"

OMNIRT_EXTERN_C_BEGIN

/** File name of the engine, looked up next to the plugin. */
#define OMNIRT_CPU_ENGINE_FILE "libomnirt_cpu_engine.so"
/** The one symbol the engine exports; of type omnirt_cpu_engine_get_fn. */
#define OMNIRT_CPU_ENGINE_SYMBOL "omnirt_cpu_engine_get"
/** Version of this table; bumped on any change the plugin must know about. */
#define OMNIRT_CPU_ENGINE_API_VERSION 2

/** A TorchScript module loaded and prepared for one tier. Owned by the engine. */
typedef struct omnirt_cpu_engine_module omnirt_cpu_engine_module;

/** Receives a warning libtorch raised; called on the thread of the engine call. */
typedef void (*omnirt_cpu_engine_warning_fn)(const char* message);

/**
 * Where the engine counts CPU memory libtorch allocates for the plugin (the
 * backend's memory statistics). Every callback is thread-safe and must not
 * throw or call libtorch.
 */
typedef struct omnirt_cpu_engine_ledger {
  /** Passed to every callback. */
  void* context;
  /** `bytes` were allocated (allocated 1) or freed (allocated 0). */
  void (*count)(void* context, size_t bytes, int32_t allocated);
  /** Keep `context` alive: the engine holds one reference per counted block
   *  until the block is freed, which may be after the plugin's instance is gone. */
  void (*retain)(void* context);
  void (*release)(void* context);
} omnirt_cpu_engine_ledger;

typedef struct omnirt_cpu_engine_api {
  /** sizeof(omnirt_cpu_engine_api) as the engine was compiled. */
  size_t struct_size;
  /** OMNIRT_CPU_ENGINE_API_VERSION the engine implements. */
  uint32_t api_version;
  /** "libtorch <version>". Static string. */
  const char* engine_version;

  /**
   * Sets libtorch's intra-op thread count, and its inter-op count unless the
   * embedder already started libtorch's inter-op pool, to `threads` (> 0).
   * Both are per process: the first call applies them; a later call with the
   * same count is OK, one with another count changes nothing and returns
   * ALREADY_EXISTS naming the count in force.
   */
  omnirt_status (*configure_threads)(int32_t threads, char* message,
                                     size_t capacity);

  /**
   * Loads a TorchScript module from `size` bytes at `data` (borrowed for the
   * call), or from the file `path` when data is NULL, and prepares it for
   * `tier`: OMNIRT_TIER_COMPILE (eval + freeze + optimize_for_inference) or
   * OMNIRT_TIER_EAGER (eval). Missing file: NOT_FOUND; bytes or file that are
   * not a TorchScript archive: INVALID_ARGUMENT; a forward whose arguments or
   * result the engine cannot pass (see run): INVALID_ARGUMENT naming the
   * argument or the result type. On success *out is a module to release with
   * destroy.
   */
  omnirt_status (*load)(const void* data, size_t size, const char* path,
                        int32_t tier, omnirt_cpu_engine_module** out,
                        char* message, size_t capacity);

  /**
   * Runs forward on `num_inputs` CPU tensors (borrowed, not copied; a module
   * that writes into its inputs writes into the caller's memory). A tensor
   * argument (Tensor, Optional[Tensor]) takes its input as it is; an int,
   * float, bool or Scalar argument takes the value of a 0-d input tensor.
   * Bool tensors are {OMNIRT_DL_BOOL, 8, 1}, or {kDLUInt, 1, 1} as input.
   * Outputs are the returned tensor, or the tensors of returned tuples,
   * lists and Dict[str, ...] flattened in order, dict entries by ascending
   * key (torch_engine/named_outputs.h), each owned by the caller (release
   * with its deleter; the deleters stay valid after the module is
   * destroyed). If there are more than `output_capacity`, returns
   * OUT_OF_RANGE with *num_outputs set to the number needed and writes none.
   * A wrong input is INVALID_ARGUMENT naming the input, the expected and the
   * actual value.
   */
  omnirt_status (*run)(omnirt_cpu_engine_module* module, const DLTensor* inputs,
                       size_t num_inputs, DLManagedTensor** outputs,
                       size_t output_capacity, size_t* num_outputs,
                       char* message, size_t capacity);

  /** Releases a module. NULL is a no-op. */
  void (*destroy)(omnirt_cpu_engine_module* module);

  /* --- version 2 ------------------------------------------------------- */

  /**
   * The name of `output`, one of the tensors run of `module` handed out: the
   * key of its dict entry (keys of nested dicts joined by '.'), or "". *name
   * is owned by the output: valid until its deleter runs. INVALID_ARGUMENT
   * when the engine did not make `output` for `module`.
   */
  omnirt_status (*output_name)(omnirt_cpu_engine_module* module, const DLManagedTensor* output,
                               const char** name, char* message, size_t capacity);

  /**
   * Where the warnings libtorch raises during load and run go, instead of
   * stderr: `sink` gets each distinct warning of a call once, on the calling
   * thread, when the call ends. NULL drops them. One sink per process.
   */
  void (*set_warning_sink)(omnirt_cpu_engine_warning_fn sink);

  /**
   * Counts the CPU memory libtorch allocates on the calling thread into
   * `ledger` (copied per counted block; NULL counts nothing) until
   * memory_scope_end, and each counted block's free whenever and wherever it
   * happens. Returns what memory_scope_end takes. The plugin wraps load and
   * run in a scope: weights, intermediates and outputs are counted; work
   * libtorch hands to its own threads is not. The first scope with a ledger
   * puts the engine's counting allocator in front of libtorch's CPU
   * allocator, for the whole process (it delegates every allocation, so
   * other users of libtorch keep working and are not counted).
   */
  const void* (*memory_scope_begin)(const omnirt_cpu_engine_ledger* ledger);
  void (*memory_scope_end)(const void* previous);

  /**
   * 1 while libtorch's CPU allocator is the counting one; 0 before the first
   * scope, and when another allocator of a higher priority is in place or
   * replaced it (then the modules' memory is not counted).
   */
  int32_t (*memory_counted)(void);
} omnirt_cpu_engine_api;

/** Returns the engine's table (static storage, never NULL). */
typedef const omnirt_cpu_engine_api* (*omnirt_cpu_engine_get_fn)(void);

OMNIRT_EXTERN_C_END

#endif /* OMNIRT_CPU_ENGINE_API_H_ */
