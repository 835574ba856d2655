// TorchScript modules in the cuda engine (engine_api.h's load).
#ifndef OMNIRT_CUDA_ENGINE_TORCH_ENGINE_H_
#define OMNIRT_CUDA_ENGINE_TORCH_ENGINE_H_

#include "engine_module.h"

namespace omnirt::cuda_engine {

/// engine_api.h's load: a TorchScript archive from bytes or a file.
omnirt_status load_torchscript(const void* data, size_t size, const char* path, int32_t tier,
                               int32_t device, omnirt_cuda_engine_module** out, char* message,
                               size_t capacity) noexcept;

}  // namespace omnirt::cuda_engine

#endif  // OMNIRT_CUDA_ENGINE_TORCH_ENGINE_H_
