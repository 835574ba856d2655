// What both module formats of the cuda engine share at its C boundary
// (engine_api.h): the caller's DLTensors borrowed as at::Tensors, outputs
// handed out as caller-owned DLManagedTensors, and exceptions turned into a
// status and a message. Dtypes (bool included), names and exported outputs
// are the TorchScript engines' shared ones (plugins/common/torch_engine).
//
// libtorch headers come first: their DLPack (ATen/dlpack.h, which
// ATen/DLConvertor.h includes; same include guard as omnirt's) must win.
#ifndef OMNIRT_CUDA_ENGINE_ENGINE_TENSORS_H_
#define OMNIRT_CUDA_ENGINE_ENGINE_TENSORS_H_

#include <ATen/DLConvertor.h>
#include <c10/util/Exception.h>

#include "torch_engine/named_outputs.h"

#include <atomic>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "engine_api.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cuda_engine {

/// What keeps an output's memory from being rewritten while its caller holds
/// it: a CUDA graph's static outputs count their holders here.
struct OutputLease {
  std::atomic<int> held{0};
};

using torch_common::NamedTensor;

/// Borrows caller's tensor `index` (forward's argument `name`, "" when
/// unknown) as an at::Tensor on cuda:`device`, without a copy;
/// INVALID_ARGUMENT when it is not there or not a tensor libtorch takes. Bool
/// comes as OMNIRT_DL_BOOL or {kDLUInt, 1, 1}.
at::Tensor wrap(const DLTensor& t, int device, size_t index, const std::string& name = "");

/// The caller's tensors as at::Tensors, borrowed.
std::vector<at::Tensor> wrap_all(const DLTensor* inputs, size_t num_inputs, int device);

/// Outputs without names (a positional result).
std::vector<NamedTensor> unnamed(std::vector<at::Tensor> tensors);

/// `output` as a caller-owned DLManagedTensor made by module `origin` (which
/// omnirt_cuda_engine_api::output_name checks); `lease` (may be null) counts
/// it as held until the caller's deleter runs.
DLManagedTensor* hand_out(NamedTensor output, const void* origin, std::shared_ptr<OutputLease> lease);

/// Hands every output out onto `out`, holding `lease` (may be null).
void hand_out_all(std::vector<NamedTensor> outputs, const void* origin,
                  const std::shared_ptr<OutputLease>& lease, std::vector<DLManagedTensor*>& out);

/// Copies `text` into the caller's message buffer, NUL-terminated, truncating.
void write_message(const std::string& text, char* message, size_t capacity);

/// Runs f(): OK, or the status and message of what it threw.
template <class F>
omnirt_status guarded(char* message, size_t capacity, F&& f) noexcept {
  try {
    f();
    return OMNIRT_STATUS_OK;
  } catch (const omnirt::plugin::Error& e) {
    write_message(e.what(), message, capacity);
    return e.status();
  } catch (const c10::OutOfMemoryError& e) {
    write_message(std::string("CUDA out of memory: ") + e.what_without_backtrace(), message,
                  capacity);
    return OMNIRT_STATUS_OUT_OF_MEMORY;
  } catch (const c10::Error& e) {
    write_message(e.what_without_backtrace(), message, capacity);
    return OMNIRT_STATUS_INVALID_ARGUMENT;
  } catch (const std::bad_alloc&) {
    write_message("out of host memory", message, capacity);
    return OMNIRT_STATUS_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    write_message(e.what(), message, capacity);
    return OMNIRT_STATUS_INTERNAL;
  } catch (...) {
    write_message("unknown exception in the cuda engine", message, capacity);
    return OMNIRT_STATUS_INTERNAL;
  }
}

}  // namespace omnirt::cuda_engine

#endif  // OMNIRT_CUDA_ENGINE_ENGINE_TENSORS_H_
