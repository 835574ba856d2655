// Modules' device memory from the plugin's allocator (engine_api.h, version
// 3). Each module gets a pool of libtorch's CUDA caching allocator whose
// segments come from the plugin (a CUDAPluggableAllocator made from the
// plugin's callbacks, given to the pool when it is made). libtorch allocates
// from that pool only on a thread inside one of the module's engine calls
// (PoolScope) and outside CUDA graph captures (the caller's, or the graph
// cache's: OutsidePools): the embedder's own use of libtorch, other threads
// and the compile tier's graph pools keep libtorch's own memory. The pool's
// filter is only a thread-local compare: it runs on every allocation. libtorch empties the pool back into the
// plugin when the module is destroyed, and what its outputs held when the
// last of them is released.
//
// Needs PyTorch >= 2.8 (pools made with an allocator, emptied one at a time);
// built against an older libtorch, CMake defines
// OMNIRT_CUDA_MEMORY_UNAVAILABLE with the reason and nothing here routes.
#ifndef OMNIRT_CUDA_ENGINE_ENGINE_MEMORY_H_
#define OMNIRT_CUDA_ENGINE_ENGINE_MEMORY_H_

#include "engine_tensors.h"  // first: libtorch's DLPack before omnirt's

#include <memory>

namespace omnirt::cuda_engine {

class ModulePool;

/// The pool for a module this thread is about to load onto `device`: from
/// the plugin's memory of the thread's scope (memory_scope_begin); null
/// without one, and where pools cannot be had (the reason is then recorded
/// for memory_counted). `aoti`: an AOTInductor package, whose weights
/// libtorch does not allocate (counted as a reason too).
std::shared_ptr<ModulePool> pool_for_load(int device, bool aoti);

/// While alive, what libtorch allocates on this thread comes from `pool`
/// (null: nothing changes), unless the thread's current stream is capturing a
/// CUDA graph when it starts: graphs keep libtorch's graph pools. Nests.
class PoolScope {
 public:
  explicit PoolScope(ModulePool* pool);
  ~PoolScope();
  PoolScope(const PoolScope&) = delete;
  PoolScope& operator=(const PoolScope&) = delete;

 private:
  ModulePool* const pool_;
  ModulePool* const previous_;
};

/// While alive, what libtorch allocates on this thread comes from its own
/// pools, not a module's (a CUDA graph capture inside an engine call). Nests.
class OutsidePools {
 public:
  OutsidePools();
  ~OutsidePools();
  OutsidePools(const OutsidePools&) = delete;
  OutsidePools& operator=(const OutsidePools&) = delete;

 private:
  ModulePool* const inside_;
};

/// The pool this thread allocates from (an output made now holds it), or null.
std::shared_ptr<void> current_pool();

/// Makes what libtorch keeps per stream for the whole process (the cuBLAS
/// and cuBLASLt workspaces) for the current stream now, from libtorch's own
/// memory: made inside a PoolScope it would hold the module's pool, and the
/// plugin's memory, after the module is gone.
void warm_outside_pools();

/// engine_api.h's version 3 memory functions.
extern const char* const kMemoryUnavailable;  // NULL when pools work here
const void* memory_scope_begin(const omnirt_cuda_engine_memory* memory) noexcept;
void memory_scope_end(const void* previous) noexcept;
int32_t memory_counted(void* context, const char** reason) noexcept;
uint64_t memory_detach(void* context) noexcept;

}  // namespace omnirt::cuda_engine

#endif  // OMNIRT_CUDA_ENGINE_ENGINE_MEMORY_H_
