// Device memory of one device, behind the allocator chosen by the backend
// option `allocator` (config: backends.cuda.options.allocator):
//   caching (default)  CachingAllocator over cudaMalloc, stream-aware reuse;
//   async              a private cudaMemPool, cudaMallocFromPoolAsync/cudaFreeAsync;
//   plain              cudaMalloc/cudaFree on every call.
// A synchronous malloc_device/free_device is stream-ordered on the default
// stream: the memory may be reused by later default-stream work at once, so
// work on other streams that used it must be done or ordered before the free
// (free_async names the stream instead). An allocator makes its device
// current around the CUDA calls it makes, and a cache hit makes none: the hot
// path of the caching allocator never touches the runtime.
#ifndef OMNIRT_PLUGINS_CUDA_CUDA_MEMORY_H_
#define OMNIRT_PLUGINS_CUDA_CUDA_MEMORY_H_

#include <memory>
#include <string>

#include "cuda_symbols.h"
#include "omnirt/types.h"

namespace omnirt::cuda {

class DeviceAllocator {
 public:
  virtual ~DeviceAllocator() = default;
  /// `size` bytes for work on `stream` (nullptr: the default stream); nullptr for 0.
  virtual void* allocate(size_t size, cudaStream_t stream) = 0;
  /// Frees `ptr` once earlier work on `stream` is done. nullptr is a no-op.
  virtual void free(void* ptr, cudaStream_t stream) = 0;
  /// Fills the fields this allocator knows and sets their `known` bits.
  virtual void stats(omnirt_memory_stats& stats) = 0;
  /// Peak to current and counts to zero; unused cached memory goes back to the device.
  virtual void reset_stats() = 0;
  /// `stream` was synchronized and is about to be destroyed.
  virtual void stream_retired(cudaStream_t stream) { (void)stream; }
};

/// The allocator named `kind` for `device`; INVALID_ARGUMENT for an unknown kind.
std::unique_ptr<DeviceAllocator> make_allocator(const std::string& kind, const Symbols& cuda,
                                                int device);

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_MEMORY_H_
