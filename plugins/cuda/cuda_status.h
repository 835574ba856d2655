// CUDA error codes to OmniRT statuses, and the one check used after every
// runtime call: a failure becomes omnirt::plugin::Error carrying the runtime's
// own text and its native code.
#ifndef OMNIRT_PLUGINS_CUDA_CUDA_STATUS_H_
#define OMNIRT_PLUGINS_CUDA_CUDA_STATUS_H_

#include "cuda_symbols.h"
#include "omnirt/status.h"

namespace omnirt::cuda {

omnirt_status status_of(cudaError_t error) noexcept;

/// Throws the Error for `error`, naming the call that failed.
[[noreturn]] void raise(const Symbols& cuda, cudaError_t error, const char* call);

inline void check(const Symbols& cuda, cudaError_t error, const char* call) {
  if (error != cudaSuccess) raise(cuda, error, call);
}

}  // namespace omnirt::cuda

/// OMNIRT_CUDA_CALL(symbols, cudaMalloc, &ptr, size): call through the table, throw on failure.
#define OMNIRT_CUDA_CALL(symbols, fn, ...) \
  ::omnirt::cuda::check((symbols), (symbols).fn(__VA_ARGS__), #fn)

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_STATUS_H_
