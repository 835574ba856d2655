/*
 * The C interface between the cuda plugin and its engine,
 * libomnirt_cuda_engine.so, built against a CUDA-enabled libtorch: TorchScript
 * modules, and AOTInductor packages where that libtorch has AOTInductor's
 * package loader. It mirrors the cpu engine's table
 * (plugins/cpu/engine/engine_api.h) with a device per module and a stream per
 * run. Version 3 appends the modules' memory (engine_memory.h): the plugin
 * still takes an engine of version 2, whose modules' memory it reports as
 * not counted.
 *
 * The engine is a separate library so that the plugin links no libtorch: the
 * plugin dlopens it from its own folder on first module use. Everything
 * crosses as C; exceptions never do. A failing function returns a non-OK
 * omnirt_status and writes a NUL-terminated message into `message`
 * (capacity bytes, truncating). Every function may be called from any
 * thread, concurrently; `run` concurrently on one module too.
 */
#ifndef OMNIRT_CUDA_ENGINE_API_H_
#define OMNIRT_CUDA_ENGINE_API_H_

#include "omnirt/types.h"

OMNIRT_EXTERN_C_BEGIN

/** File name of the engine, looked up next to the plugin. */
#define OMNIRT_CUDA_ENGINE_FILE "libomnirt_cuda_engine.so"
/** The one symbol the engine exports; of type omnirt_cuda_engine_get_fn. */
#define OMNIRT_CUDA_ENGINE_SYMBOL "omnirt_cuda_engine_get"
/** Version of this table; bumped on any change the plugin must know about. */
#define OMNIRT_CUDA_ENGINE_API_VERSION 3

/** A module (either format) loaded onto one GPU for one tier. Owned by the engine. */
typedef struct omnirt_cuda_engine_module omnirt_cuda_engine_module;

/** Receives a warning libtorch raised; called on the thread of the engine call. */
typedef void (*omnirt_cuda_engine_warning_fn)(const char* message);

/**
 * Version 3: the plugin's device memory, which the engine's modules take
 * their memory from (memory_scope_begin). libtorch keeps caching it: each
 * allocate is one segment of libtorch's caching allocator (2 MiB for small
 * tensors, 20 MiB or the tensor rounded up to 2 MiB for larger ones), freed
 * when libtorch empties that module's pool: when the module is destroyed,
 * and for what the outputs it handed out still held, when the last of them
 * is released.
 */
typedef struct omnirt_cuda_engine_memory {
  /** sizeof(omnirt_cuda_engine_memory) as the plugin was compiled. */
  size_t struct_size;
  /** Passed back to both functions; identifies the plugin's instance (memory_detach). */
  void* context;
  /**
   * `size` bytes of device memory of `device` for work on `stream` (a
   * cudaStream_t; NULL: the legacy default stream), or NULL when the device
   * is full. Called with `device` current, from any thread, while libtorch
   * holds its allocator's lock: must not throw, nor call into libtorch.
   */
  void* (*allocate)(void* context, int32_t device, size_t size, void* stream);
  /**
   * Gives back `ptr`, which `allocate` returned for `device`. No work uses
   * it any more: the engine synchronizes the device first, as the cudaFree
   * it stands for would. Same thread rules as allocate.
   */
  void (*free)(void* context, int32_t device, void* ptr);
} omnirt_cuda_engine_memory;

typedef struct omnirt_cuda_engine_api {
  /** sizeof(omnirt_cuda_engine_api) as the engine was compiled. */
  size_t struct_size;
  /** OMNIRT_CUDA_ENGINE_API_VERSION the engine implements. */
  uint32_t api_version;
  /** "libtorch <version> (CUDA <version>)". Static string. */
  const char* engine_version;

  /**
   * Loads a TorchScript module from `size` bytes at `data` (borrowed for the
   * call), or from the file `path` when data is NULL, onto CUDA device
   * `device`, prepared for `tier`: OMNIRT_TIER_COMPILE (eval + freeze +
   * optimize_for_inference, then one CUDA graph per input signature, captured
   * on its first run and replayed after; no graphs for a forward that takes
   * scalar arguments) or OMNIRT_TIER_EAGER (eval). Missing file: NOT_FOUND;
   * not a TorchScript archive, or a forward whose arguments or result the
   * engine cannot pass (see run): INVALID_ARGUMENT.
   */
  omnirt_status (*load)(const void* data, size_t size, const char* path, int32_t tier,
                        int32_t device, omnirt_cuda_engine_module** out, char* message,
                        size_t capacity);

  /**
   * Runs forward on `num_inputs` tensors on the module's device (borrowed;
   * their device label is trusted, as torch.from_dlpack trusts it),
   * enqueued on `stream` (a cudaStream_t; NULL: the device's default stream).
   * Arguments and outputs are as in the cpu engine (plugins/cpu/engine/
   * engine_api.h): an int, float, bool or Scalar argument is a 0-d tensor on
   * the device, read when the run is enqueued (a copy to the host that waits
   * for the work before it on `stream`); bool tensors are OMNIRT_DL_BOOL (or
   * {kDLUInt, 1, 1} as input); outputs are the tensors of the result,
   * Dict[str, ...] entries by ascending key, each owned by the caller
   * (release with its deleter, which stays valid after the module is
   * destroyed); their memory may be reused by later work on `stream` once
   * released. More outputs than `output_capacity`: OUT_OF_RANGE with
   * *num_outputs set to the number needed.
   * On OK, `message` holds a note for the caller's log, or is empty: a run
   * that went another way than its tier promises says so there (a compile
   * tier's CUDA graph that could not be captured, for one input signature,
   * whose runs then go through the module itself).
   */
  omnirt_status (*run)(omnirt_cuda_engine_module* module, const DLTensor* inputs,
                       size_t num_inputs, void* stream, DLManagedTensor** outputs,
                       size_t output_capacity, size_t* num_outputs, char* message,
                       size_t capacity);

  /** Releases a module. NULL is a no-op. */
  void (*destroy)(omnirt_cuda_engine_module* module);

  /* Appended: AOTInductor packages (module format "aoti"). */

  /**
   * Loads an AOTInductor package (a .pt2 made by
   * torch._inductor.aoti_compile_and_package for CUDA) like `load`, from
   * bytes or a file, onto `device`, for `tier`: OMNIRT_TIER_COMPILE runs the
   * package through one CUDA graph per input signature (captured on its first
   * run after warm-up runs, then replayed); OMNIRT_TIER_EAGER runs the
   * package itself. Runs and destroys go through `run` and `destroy`. Missing
   * file: NOT_FOUND; not such a package: INVALID_ARGUMENT. NULL when the
   * engine's libtorch has no AOTInductor package loader (see aoti_unavailable).
   */
  omnirt_status (*load_aoti)(const void* data, size_t size, const char* path, int32_t tier,
                             int32_t device, omnirt_cuda_engine_module** out, char* message,
                             size_t capacity);
  /** Why load_aoti is NULL ("libtorch 2.5.1 has no ..."); NULL when it is not. Static string. */
  const char* aoti_unavailable;

  /* --- version 2 ------------------------------------------------------- */

  /**
   * The name of `output`, one of the tensors run of `module` handed out: its
   * dict key (nested keys joined by '.'), or "". Owned by the output: valid
   * until its deleter runs. INVALID_ARGUMENT when the engine did not make
   * `output` for `module`.
   */
  omnirt_status (*output_name)(omnirt_cuda_engine_module* module, const DLManagedTensor* output,
                               const char** name, char* message, size_t capacity);

  /**
   * Where the warnings libtorch raises during load and run go, instead of
   * stderr: `sink` gets each distinct warning of a call once, on the calling
   * thread, when the call ends. NULL drops them. One sink per process.
   */
  void (*set_warning_sink)(omnirt_cuda_engine_warning_fn sink);

  /* --- version 3 ------------------------------------------------------- */

  /**
   * Why this engine cannot take modules' memory from the plugin (its
   * libtorch has no allocator pools with an allocator of their own: PyTorch
   * < 2.8), or NULL when it can. Static string. When it is not NULL the
   * three memory_scope_begin/memory_scope_end/memory_detach functions still
   * exist and do nothing, and memory_counted answers 0 with this reason.
   */
  const char* memory_unavailable;

  /**
   * Until the matching memory_scope_end on the calling thread, modules that
   * `load` and `load_aoti` load take their device memory from `memory`
   * (copied; NULL: from libtorch's own allocator): their weights, and in
   * every run of theirs (on any thread, later) what libtorch allocates on
   * that thread for the run on a stream that is not capturing a CUDA graph
   * (intermediates, outputs). Each module keeps its own libtorch pool,
   * emptied back into `memory` when the module is destroyed (what its held
   * outputs keep, when the last of them is released). The compile tier's CUDA graphs keep their memory in libtorch's
   * own graph pools. Returns what memory_scope_end restores.
   */
  const void* (*memory_scope_begin)(const omnirt_cuda_engine_memory* memory);
  void (*memory_scope_end)(const void* previous);

  /**
   * 1 when the figures of `context`'s allocator include all the memory of
   * the modules loaded through it (load or run: see memory_scope_begin);
   * else 0 with why in *reason (static or owned by the engine; valid until
   * the process ends): the build (memory_unavailable), PyTorch's CUDA
   * allocator backend (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync has no
   * pools), or an AOTInductor package, which keeps its weights in memory of
   * its own. `reason` may be NULL.
   */
  int32_t (*memory_counted)(void* context, const char** reason);

  /**
   * The plugin's instance `context` is going away: the engine returns the
   * memory its pools cache, then calls neither function of `context` again,
   * also for modules and outputs that are still alive. Returns the number
   * of segments (allocate calls not yet freed) those still hold: their
   * memory must stay allocated (the plugin leaks it), or they would point
   * at freed memory.
   */
  uint64_t (*memory_detach)(void* context);
} omnirt_cuda_engine_api;

/** Returns the engine's table (static storage, never NULL). */
typedef const omnirt_cuda_engine_api* (*omnirt_cuda_engine_get_fn)(void);

OMNIRT_EXTERN_C_END

#endif /* OMNIRT_CUDA_ENGINE_API_H_ */
