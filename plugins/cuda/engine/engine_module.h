// The engine's modules behind the C table's opaque omnirt_cuda_engine_module:
// one class per module format, run and destroyed through the same two C
// functions (engine_api.h's run and destroy).
#ifndef OMNIRT_CUDA_ENGINE_ENGINE_MODULE_H_
#define OMNIRT_CUDA_ENGINE_ENGINE_MODULE_H_

#include "engine_tensors.h"  // first: libtorch's DLPack before omnirt's

#include <c10/cuda/CUDAStream.h>

#include <memory>
#include <string>
#include <vector>

namespace omnirt::cuda_engine {
class ModulePool;
}  // namespace omnirt::cuda_engine

struct omnirt_cuda_engine_module {
  explicit omnirt_cuda_engine_module(int device_index) : device(device_index) {}
  virtual ~omnirt_cuda_engine_module() = default;
  omnirt_cuda_engine_module(const omnirt_cuda_engine_module&) = delete;
  omnirt_cuda_engine_module& operator=(const omnirt_cuda_engine_module&) = delete;

  /// One run of the caller's tensors, enqueued on `stream` (current on this
  /// thread, its device current): appends the caller-owned outputs to `out`
  /// and, when the run went another way than its tier promises, a line for
  /// the caller's log to `note`. Throws on failure.
  virtual void run(const DLTensor* inputs, size_t num_inputs, const c10::cuda::CUDAStream& stream,
                   std::vector<DLManagedTensor*>& out, std::string& note) = 0;

  const int device;
  /// Where its memory comes from (engine_memory.h): set by the loader, null
  /// for libtorch's own. A base member, so it goes after the module's tensors.
  std::shared_ptr<omnirt::cuda_engine::ModulePool> pool;
};

namespace omnirt::cuda_engine {

/// The checks every load makes: tier COMPILE or EAGER (INVALID_ARGUMENT), a
/// device libtorch sees (OUT_OF_RANGE).
void check_load_arguments(int32_t tier, int32_t device);

/// engine_api.h's run and destroy, for modules of every format.
omnirt_status run_module(omnirt_cuda_engine_module* module, const DLTensor* inputs,
                         size_t num_inputs, void* stream, DLManagedTensor** outputs,
                         size_t output_capacity, size_t* num_outputs, char* message,
                         size_t capacity) noexcept;
void destroy_module(omnirt_cuda_engine_module* module) noexcept;
/// engine_api.h's output_name, for modules of every format.
omnirt_status output_name(omnirt_cuda_engine_module* module, const DLManagedTensor* output,
                          const char** name, char* message, size_t capacity) noexcept;

}  // namespace omnirt::cuda_engine

#endif  // OMNIRT_CUDA_ENGINE_ENGINE_MODULE_H_
