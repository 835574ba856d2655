// AOTInductor packages in the cuda engine (engine_api.h's load_aoti). Built
// only where the engine's libtorch has AOTInductor's package loader
// (PyTorch >= 2.6), which CMake detects and announces with
// OMNIRT_CUDA_ENGINE_AOTI; elsewhere the table's load_aoti is NULL and its
// aoti_unavailable says why.
#ifndef OMNIRT_CUDA_ENGINE_AOTI_ENGINE_H_
#define OMNIRT_CUDA_ENGINE_AOTI_ENGINE_H_

#include "engine_module.h"

namespace omnirt::cuda_engine {

#ifdef OMNIRT_CUDA_ENGINE_AOTI
/// engine_api.h's load_aoti.
omnirt_status load_aoti(const void* data, size_t size, const char* path, int32_t tier,
                        int32_t device, omnirt_cuda_engine_module** out, char* message,
                        size_t capacity) noexcept;
#endif

}  // namespace omnirt::cuda_engine

#endif  // OMNIRT_CUDA_ENGINE_AOTI_ENGINE_H_
