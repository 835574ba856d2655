// libomnirt_cuda_engine.so's one export: the table of engine_api.h.
#include "aoti_engine.h"
#include "engine_memory.h"
#include "engine_module.h"
#include "torch_engine.h"

#include <torch/version.h>

#include "torch_engine/warning_capture.h"

namespace omnirt::cuda_engine {
namespace {

const omnirt_cuda_engine_api kApi = {
    sizeof(omnirt_cuda_engine_api),
    OMNIRT_CUDA_ENGINE_API_VERSION,
    "libtorch " TORCH_VERSION,
    &load_torchscript,
    &run_module,
    &destroy_module,
#ifdef OMNIRT_CUDA_ENGINE_AOTI
    &load_aoti,
    nullptr,
#else
    nullptr,
    OMNIRT_CUDA_AOTI_UNAVAILABLE,
#endif
    &output_name,
    &torch_common::set_warning_sink,
    kMemoryUnavailable,
    &memory_scope_begin,
    &memory_scope_end,
    &memory_counted,
    &memory_detach,
};

}  // namespace
}  // namespace omnirt::cuda_engine

extern "C" __attribute__((visibility("default"))) const omnirt_cuda_engine_api*
omnirt_cuda_engine_get(void) {
  return &omnirt::cuda_engine::kApi;
}
