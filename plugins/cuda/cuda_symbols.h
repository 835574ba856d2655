// The CUDA runtime functions the plugin calls, resolved with dlsym from a
// libcudart found at run time (the plugin links no CUDA library: DESIGN
// decision 4). One X-macro list declares the table and drives the loader, as
// IREE's cuda_dynamic_symbol_table.h does.
//
// Only the runtime is loaded: it finds the driver (libcuda.so.1) itself, keeps
// the primary contexts libtorch shares, and its library API
// (cudaLibraryLoadData, cudaLibraryGetKernel, cudaLaunchKernelExC) launches the
// embedded kernels without a driver-API table or context juggling.
#ifndef OMNIRT_PLUGINS_CUDA_CUDA_SYMBOLS_H_
#define OMNIRT_PLUGINS_CUDA_CUDA_SYMBOLS_H_

#include <cuda_runtime_api.h>

namespace omnirt::cuda {

// Names go through cuda_runtime_api.h's versioning macros (e.g. the _ptsz
// variants), so the table holds the same symbol a linked program would call.
#define OMNIRT_CUDART_SYMBOLS(X)        \
  X(cudaGetErrorName)                   \
  X(cudaGetErrorString)                 \
  X(cudaGetLastError)                   \
  X(cudaRuntimeGetVersion)              \
  X(cudaDriverGetVersion)               \
  X(cudaGetDeviceCount)                 \
  X(cudaGetDevice)                      \
  X(cudaSetDevice)                      \
  X(cudaGetDeviceProperties)            \
  X(cudaDeviceGetAttribute)             \
  X(cudaDeviceSynchronize)              \
  X(cudaPointerGetAttributes)           \
  X(cudaMalloc)                         \
  X(cudaFree)                           \
  X(cudaHostAlloc)                      \
  X(cudaFreeHost)                       \
  X(cudaMemPoolCreate)                  \
  X(cudaMemPoolDestroy)                 \
  X(cudaMemPoolSetAttribute)            \
  X(cudaMemPoolGetAttribute)            \
  X(cudaMemPoolTrimTo)                  \
  X(cudaMallocFromPoolAsync)            \
  X(cudaFreeAsync)                      \
  X(cudaMemcpy)                         \
  X(cudaMemcpyAsync)                    \
  X(cudaMemcpyPeer)                     \
  X(cudaMemcpyPeerAsync)                \
  X(cudaMemset)                         \
  X(cudaMemsetAsync)                    \
  X(cudaMemGetInfo)                     \
  X(cudaStreamCreateWithFlags)          \
  X(cudaStreamDestroy)                  \
  X(cudaStreamSynchronize)              \
  X(cudaStreamQuery)                    \
  X(cudaStreamWaitEvent)                \
  X(cudaEventCreateWithFlags)           \
  X(cudaEventDestroy)                   \
  X(cudaEventRecord)                    \
  X(cudaEventQuery)                     \
  X(cudaEventSynchronize)               \
  X(cudaEventElapsedTime)               \
  X(cudaStreamBeginCapture)             \
  X(cudaStreamIsCapturing)              \
  X(cudaStreamEndCapture)               \
  X(cudaGraphInstantiate)               \
  X(cudaGraphLaunch)                    \
  X(cudaGraphExecDestroy)               \
  X(cudaGraphDestroy)                   \
  X(cudaLibraryLoadData)                \
  X(cudaLibraryUnload)                  \
  X(cudaLibraryGetKernel)               \
  X(cudaFuncSetAttribute)               \
  X(cudaLaunchKernelExC)

// Function pointers typed from the toolkit's own prototypes.
struct Symbols {
#define OMNIRT_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  OMNIRT_CUDART_SYMBOLS(OMNIRT_CUDA_DECLARE)
#undef OMNIRT_CUDA_DECLARE
};

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_SYMBOLS_H_
