#include "engine_module.h"

#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>

#include <optional>

#include "engine_memory.h"
#include "engine_tensors.h"
#include "torch_engine/exported_tensor.h"
#include "torch_engine/warning_capture.h"

namespace omnirt::cuda_engine {

void check_load_arguments(int32_t tier, int32_t device) {
  if (tier != OMNIRT_TIER_COMPILE && tier != OMNIRT_TIER_EAGER) {
    omnirt::plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                         "tier: " + std::to_string(tier) + " is not COMPILE or EAGER");
  }
  if (device < 0 || device >= int(c10::cuda::device_count())) {
    omnirt::plugin::fail(OMNIRT_STATUS_OUT_OF_RANGE,
                         "device: libtorch sees " + std::to_string(c10::cuda::device_count()) +
                             " CUDA devices");
  }
}

omnirt_status run_module(omnirt_cuda_engine_module* module, const DLTensor* inputs,
                         size_t num_inputs, void* stream, DLManagedTensor** outputs,
                         size_t output_capacity, size_t* num_outputs, char* message,
                         size_t capacity) noexcept {
  torch_common::WarningCapture warnings;
  return guarded(message, capacity, [&] {
    const auto index = c10::DeviceIndex(module->device);
    const c10::cuda::CUDAStream current =
        stream != nullptr
            ? c10::cuda::getStreamFromExternal(static_cast<cudaStream_t>(stream), index)
            : c10::cuda::getDefaultCUDAStream(index);
    // Restores the caller's device and stream; not needed (and not paid for)
    // when the run's stream is already current.
    std::optional<c10::cuda::CUDAStreamGuard> on_stream;
    if (c10::cuda::getCurrentCUDAStream(index) != current || c10::cuda::current_device() != index) {
      on_stream.emplace(current);
    }
    std::vector<DLManagedTensor*> produced;
    std::string note;
    try {
      const PoolScope in_pool(module->pool.get());  // the outputs hold the pool
      module->run(inputs, num_inputs, current, produced, note);
    } catch (...) {
      for (DLManagedTensor* t : produced) t->deleter(t);
      throw;
    }
    *num_outputs = produced.size();
    if (produced.size() > output_capacity) {
      for (DLManagedTensor* t : produced) t->deleter(t);
      omnirt::plugin::fail(OMNIRT_STATUS_OUT_OF_RANGE,
                           "the module has " + std::to_string(produced.size()) +
                               " outputs, output_capacity is " + std::to_string(output_capacity));
    }
    std::copy(produced.begin(), produced.end(), outputs);
    write_message(note, message, capacity);
  });
}

omnirt_status output_name(omnirt_cuda_engine_module* module, const DLManagedTensor* output,
                          const char** name, char* message, size_t capacity) noexcept {
  return guarded(message, capacity, [&] {
    *name = torch_common::exported_name(output, module);
    if (*name == nullptr) {
      omnirt::plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                           "the output is not one this module's runs returned");
    }
  });
}

void destroy_module(omnirt_cuda_engine_module* module) noexcept {
  try {
    delete module;
  } catch (...) {  // a destructor must not take the process down
  }
}

}  // namespace omnirt::cuda_engine
