/*
 * The C interface between the cuda plugin and its engine,
 * libomnirt_cuda_engine.so, built against a CUDA-enabled libtorch: TorchScript
 * modules, and AOTInductor packages where that libtorch has AOTInductor's
 * package loader. It mirrors the cpu engine's table
 * (plugins/cpu/engine/engine_api.h) with a device per module and a stream per
 * run.
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
#define OMNIRT_CUDA_ENGINE_API_VERSION 2

/** A module (either format) loaded onto one GPU for one tier. Owned by the engine. */
typedef struct omnirt_cuda_engine_module omnirt_cuda_engine_module;

/** Receives a warning libtorch raised; called on the thread of the engine call. */
typedef void (*omnirt_cuda_engine_warning_fn)(const char* message);

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
} omnirt_cuda_engine_api;

/** Returns the engine's table (static storage, never NULL). */
typedef const omnirt_cuda_engine_api* (*omnirt_cuda_engine_get_fn)(void);

OMNIRT_EXTERN_C_END

#endif /* OMNIRT_CUDA_ENGINE_API_H_ */
