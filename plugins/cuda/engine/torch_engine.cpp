// libomnirt_cuda_engine.so: TorchScript on a CUDA libtorch (engine_api.h).
//
// Compile tier: the frozen, optimized module runs as a CUDA graph per input
// signature (dtypes and shapes). A graph slot owns static input and output
// tensors; a run copies the inputs in and replays the graph on the caller's
// stream, then hands the static outputs out without a copy. While the caller
// holds a slot's outputs the slot is busy, and a run uses (or captures, up to
// kSlotsPerSignature) another, falling back to the frozen module itself
// beyond that, so an output is never overwritten under its owner. Inputs that
// are not contiguous also run the frozen module without a graph.
//
// libtorch headers come first: their DLPack (ATen/dlpack.h, which
// ATen/DLConvertor.h includes; same include guard as omnirt's) must win.
// Inputs, outputs, dtypes (bool included), dict outputs' names, scalar
// arguments and warnings are handled as in the cpu engine, by the sources
// they share (plugins/common/torch_engine).
#include <cuda_runtime_api.h>

#include <ATen/DLConvertor.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/script.h>
#include <torch/version.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "engine_api.h"
#include "omnirt/cpp/plugin.hpp"
#include "torch_engine/exported_tensor.h"
#include "torch_engine/forward_signature.h"
#include "torch_engine/named_outputs.h"
#include "torch_engine/warning_capture.h"

namespace {

using omnirt::plugin::Error;
using omnirt::plugin::fail;
using omnirt::torch_common::ForwardSignature;
using omnirt::torch_common::NamedTensor;

constexpr const char* kEngine = "the cuda engine";

constexpr size_t kSlotsPerSignature = 4;
constexpr int kWarmupRuns = 3;  // cuBLAS handles, workspaces and JIT profiling before capture

struct GraphSlot {
  at::cuda::CUDAGraph graph;
  std::vector<at::Tensor> inputs;    // static, contiguous: runs copy into them
  std::vector<DLDataType> dtypes;    // of `inputs`, in canonical form (bool: OMNIRT_DL_BOOL)
  std::vector<NamedTensor> outputs;  // static: written by every replay
  std::atomic<int> held{0};          // outputs handed out and not yet released
  cudaStream_t last_stream = nullptr;
};

// Borrows caller's input `index` (forward's `name`) as an at::Tensor on
// `device`, without a copy. Bool comes as OMNIRT_DL_BOOL or {kDLUInt, 1, 1};
// the rest as this libtorch's DLPack table takes it.
at::Tensor wrap(const DLTensor& t, int device, size_t index, const std::string& name) {
  auto who = [&] { return omnirt::torch_common::input_text(index, name); };  // on failure only
  if (t.device.device_type != kDLCUDA || t.device.device_id != device) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT,
         who() + ": must be on cuda:" + std::to_string(device) + ", got device type " +
             std::to_string(t.device.device_type) + " id " + std::to_string(t.device.device_id));
  }
  if (t.ndim < 0 || t.ndim > 64 || (t.ndim > 0 && t.shape == nullptr)) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, who() + ": bad ndim " + std::to_string(t.ndim));
  }
  std::string why;
  const std::optional<at::ScalarType> type = omnirt::torch_common::scalar_type(t.dtype, &why);
  if (!type) omnirt::torch_common::refuse_dtype(who(), t.dtype, why);
  // The device is given: at::from_blob without one asks CUDA for the
  // pointer's device (cudaPointerGetAttributes) on every run. The DLTensor's
  // device label is trusted, as torch.from_dlpack trusts it (engine_api.h).
  const at::Device where(at::kCUDA, c10::DeviceIndex(device));
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  at::TensorMaker maker = at::for_blob(data, at::IntArrayRef(t.shape, size_t(t.ndim)));
  maker.options(at::TensorOptions().dtype(*type).device(where)).target_device(where);
  if (t.strides != nullptr) maker.strides(at::IntArrayRef(t.strides, size_t(t.ndim)));
  return maker.make_tensor();
}

// forward's stack for `n` inputs, with room for the `self` that
// Method::operator() inserts first: the insert then moves the inputs up
// instead of reallocating.
std::vector<c10::IValue> stack_for(size_t n) {
  std::vector<c10::IValue> stack;
  stack.reserve(n + 1);
  return stack;
}

// An output as a caller-owned DLManagedTensor of `origin` (the module); with
// a graph slot, the slot stays busy until the output is released.
DLManagedTensor* hand_out(NamedTensor output, const void* origin, std::shared_ptr<GraphSlot> slot) {
  std::shared_ptr<void> busy;
  if (slot) {
    slot->held.fetch_add(1);
    busy = std::shared_ptr<void>(nullptr, [slot](void*) { slot->held.fetch_sub(1); });
  }
  return omnirt::torch_common::export_tensor(std::move(output.tensor), std::move(output.name),
                                             origin, std::move(busy));
}

// Can `slot` take these inputs as they are: same dtypes and shapes, each
// contiguous, so that one cudaMemcpyAsync per input feeds the graph?
bool fits(const GraphSlot& slot, const DLTensor* inputs, size_t num_inputs) {
  if (slot.inputs.size() != num_inputs) return false;
  for (size_t i = 0; i < num_inputs; ++i) {
    const DLTensor& t = inputs[i];
    const at::Tensor& s = slot.inputs[i];
    const DLDataType dtype = omnirt::torch_common::canonical(t.dtype);
    if (t.device.device_type != kDLCUDA || t.device.device_id != s.get_device() ||
        t.ndim != s.dim() || dtype.code != slot.dtypes[i].code ||
        dtype.bits != slot.dtypes[i].bits || dtype.lanes != slot.dtypes[i].lanes) {
      return false;
    }
    int64_t stride = 1;
    for (int d = t.ndim - 1; d >= 0; --d) {
      if (t.shape[d] != s.size(d)) return false;
      if (t.strides != nullptr && t.shape[d] > 1 && t.strides[d] != stride) return false;
      stride *= t.shape[d];
    }
  }
  return true;
}

void write_message(const std::string& text, char* message, size_t capacity) {
  if (message == nullptr || capacity == 0) return;
  const size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(message, text.data(), n);
  message[n] = '\0';
}

template <class F>
omnirt_status guarded(char* message, size_t capacity, F&& f) noexcept {
  try {
    f();
    return OMNIRT_STATUS_OK;
  } catch (const Error& e) {
    write_message(e.what(), message, capacity);
    return e.status();
  } catch (const c10::OutOfMemoryError& e) {
    write_message(std::string("CUDA out of memory: ") + e.what_without_backtrace(), message, capacity);
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

}  // namespace

struct omnirt_cuda_engine_module {
  torch::jit::Module module;  // the compile tier's is frozen and optimized
  // `module`'s forward, looked up once: Module::forward looks it up by name
  // on every call. Method::operator() is const; concurrent runs share it.
  torch::jit::Method forward_method;
  const ForwardSignature signature;
  const int device;
  // Compile tier, with tensor arguments only: a graph would bake a scalar
  // argument's value into its replays.
  const bool graphs;
  std::mutex mutex;   // guards `slots`, and the static tensors of each slot
  std::vector<std::shared_ptr<GraphSlot>> slots;  // at most kSlotsPerSignature per signature

  // `m` as it will run: frozen and optimized already for the compile tier.
  // Refuses a forward whose arguments or result the engine cannot pass.
  omnirt_cuda_engine_module(torch::jit::Module m, int device_index, bool compile_tier)
      : module(std::move(m)),
        forward_method(module.get_method("forward")),
        signature(ForwardSignature::of(forward_method.function().getSchema(), kEngine)),
        device(device_index),
        graphs(compile_tier && !signature.takes_scalars()) {
    omnirt::torch_common::check_result_type(forward_method.function().getSchema(), kEngine);
  }

  // Runs forward on `stack` (the inputs, with room for `self`) and flattens its result.
  std::vector<NamedTensor> forward(std::vector<c10::IValue> stack) {
    c10::InferenceMode inference;  // a graph replay needs none: it is set here only
    return omnirt::torch_common::flatten_result(forward_method(std::move(stack)));
  }

  std::vector<NamedTensor> forward(const std::vector<at::Tensor>& inputs) {
    std::vector<c10::IValue> stack = stack_for(inputs.size());
    for (const at::Tensor& t : inputs) stack.emplace_back(t);
    return forward(std::move(stack));
  }

  // Warms up and captures a graph for the signature of `inputs`, on a side
  // stream (capture cannot use the default stream) ordered after `current`.
  std::shared_ptr<GraphSlot> capture(const std::vector<c10::IValue>& inputs,
                                     const c10::cuda::CUDAStream& current) {
    auto slot = std::make_shared<GraphSlot>();
    for (const c10::IValue& input : inputs) {
      const at::Tensor& t = input.toTensor();
      slot->inputs.push_back(t.clone(at::MemoryFormat::Contiguous));
      slot->dtypes.push_back(omnirt::torch_common::dl_dtype(t, ""));
    }
    c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, c10::DeviceIndex(device));
    at::cuda::CUDAEvent ready;
    ready.record(current);
    ready.block(side);
    {
      c10::cuda::CUDAStreamGuard on_side(side);
      for (int i = 0; i < kWarmupRuns; ++i) forward(slot->inputs);
      slot->graph.capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
      slot->outputs = forward(slot->inputs);
      slot->graph.capture_end();
    }
    at::cuda::CUDAEvent captured;
    captured.record(side);
    captured.block(current);
    slot->last_stream = current.stream();
    return slot;
  }

  // A replay with the caller's inputs copied in. The hot path touches no
  // at::Tensor of the caller: a signature match and one copy per input.
  void run_graph(const DLTensor* inputs, size_t num_inputs, const c10::cuda::CUDAStream& current,
                 std::vector<DLManagedTensor*>& out) {
    std::lock_guard<std::mutex> lock(mutex);
    std::shared_ptr<GraphSlot> slot;
    size_t same_signature = 0;
    for (const auto& s : slots) {
      if (!fits(*s, inputs, num_inputs)) continue;
      ++same_signature;
      if (s->held.load() == 0) {
        slot = s;
        break;
      }
    }
    if (!slot) {
      std::vector<c10::IValue> args = wrap_all(inputs, num_inputs);
      bool contiguous = true;  // graphs take contiguous inputs only
      for (const c10::IValue& t : args) contiguous = contiguous && t.toTensor().is_contiguous();
      // Without a graph when every slot's outputs are held, or for strided inputs.
      if (same_signature >= kSlotsPerSignature || !contiguous) {
        hand_out_all(forward(std::move(args)), out);
        return;
      }
      slot = capture(args, current);
      slots.push_back(slot);
    }
    if (slot->last_stream != current.stream()) {
      // The slot's last replay ran on another stream: let it finish first.
      c10::cuda::getStreamFromExternal(slot->last_stream, c10::DeviceIndex(device)).synchronize();
      slot->last_stream = current.stream();
    }
    for (size_t i = 0; i < num_inputs; ++i) {
      const DLTensor& t = inputs[i];
      at::Tensor& target = slot->inputs[i];
      C10_CUDA_CHECK(cudaMemcpyAsync(target.data_ptr(), static_cast<const char*>(t.data) + t.byte_offset,
                                     target.nbytes(), cudaMemcpyDeviceToDevice, current.stream()));
    }
    slot->graph.replay();
    out.reserve(out.size() + slot->outputs.size());  // push_back cannot throw below
    for (const NamedTensor& t : slot->outputs) out.push_back(hand_out(t, this, slot));
  }

  // The caller's inputs as forward's stack, tensors borrowed.
  std::vector<c10::IValue> wrap_all(const DLTensor* inputs, size_t num_inputs) const {
    const int on = device;
    return omnirt::torch_common::to_arguments(
        signature, inputs, num_inputs,
        [on](const DLTensor& t, size_t index, const std::string& name) {
          return wrap(t, on, index, name);
        });
  }

  // Hands `outputs` out, owning no graph slot, onto `out`.
  void hand_out_all(std::vector<NamedTensor> outputs, std::vector<DLManagedTensor*>& out) {
    out.reserve(out.size() + outputs.size());  // push_back cannot throw below
    for (NamedTensor& t : outputs) out.push_back(hand_out(std::move(t), this, nullptr));
  }
};

namespace {

omnirt_status load(const void* data, size_t size, const char* path, int32_t tier, int32_t device,
                   omnirt_cuda_engine_module** out, char* message, size_t capacity) noexcept {
  omnirt::torch_common::WarningCapture warnings;
  return guarded(message, capacity, [&] {
    if (tier != OMNIRT_TIER_COMPILE && tier != OMNIRT_TIER_EAGER) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, "tier: " + std::to_string(tier) + " is not COMPILE or EAGER");
    }
    if (device < 0 || device >= int(c10::cuda::device_count())) {
      fail(OMNIRT_STATUS_OUT_OF_RANGE, "device: libtorch sees " +
                                           std::to_string(c10::cuda::device_count()) + " CUDA devices");
    }
    const c10::Device target(c10::kCUDA, c10::DeviceIndex(device));
    const bool graphs = tier == OMNIRT_TIER_COMPILE;
    torch::NoGradGuard no_grad;
    torch::jit::Module module;
    try {
      if (data != nullptr) {
        std::istringstream bytes(std::string(static_cast<const char*>(data), size));
        module = torch::jit::load(bytes, target);
      } else {
        if (!std::ifstream(path).good()) fail(OMNIRT_STATUS_NOT_FOUND, std::string("no module file ") + path);
        module = torch::jit::load(path, target);
      }
    } catch (const c10::Error& e) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT,
           std::string("not a TorchScript archive: ") + e.what_without_backtrace());
    }
    module.eval();
    if (graphs) {
      module = torch::jit::freeze(module);
      module = torch::jit::optimize_for_inference(module);
    }
    // Looks forward up in the module that runs: after freezing, not before.
    *out = new omnirt_cuda_engine_module(std::move(module), device, graphs);
  });
}

omnirt_status run(omnirt_cuda_engine_module* module, const DLTensor* inputs, size_t num_inputs,
                  void* stream, DLManagedTensor** outputs, size_t output_capacity,
                  size_t* num_outputs, char* message, size_t capacity) noexcept {
  omnirt::torch_common::WarningCapture warnings;
  return guarded(message, capacity, [&] {
    const auto index = c10::DeviceIndex(module->device);
    const c10::cuda::CUDAStream current =
        stream != nullptr ? c10::cuda::getStreamFromExternal(static_cast<cudaStream_t>(stream), index)
                          : c10::cuda::getDefaultCUDAStream(index);
    // Restores the caller's device and stream; not needed (and not paid for)
    // when the run's stream is already current.
    std::optional<c10::cuda::CUDAStreamGuard> on_stream;
    if (c10::cuda::getCurrentCUDAStream(index) != current || c10::cuda::current_device() != index) {
      on_stream.emplace(current);
    }
    std::vector<DLManagedTensor*> produced;
    try {
      if (module->graphs) {
        module->run_graph(inputs, num_inputs, current, produced);
      } else {
        module->hand_out_all(module->forward(module->wrap_all(inputs, num_inputs)), produced);
      }
    } catch (...) {
      for (DLManagedTensor* t : produced) t->deleter(t);
      throw;
    }
    *num_outputs = produced.size();
    if (produced.size() > output_capacity) {
      for (DLManagedTensor* t : produced) t->deleter(t);
      fail(OMNIRT_STATUS_OUT_OF_RANGE, "the module has " + std::to_string(produced.size()) +
                                           " outputs, output_capacity is " +
                                           std::to_string(output_capacity));
    }
    std::copy(produced.begin(), produced.end(), outputs);
  });
}

void destroy(omnirt_cuda_engine_module* module) noexcept {
  try {
    delete module;
  } catch (...) {  // a destructor must not take the process down
  }
}

omnirt_status output_name(omnirt_cuda_engine_module* module, const DLManagedTensor* output,
                          const char** name, char* message, size_t capacity) noexcept {
  return guarded(message, capacity, [&] {
    *name = omnirt::torch_common::exported_name(output, module);
    if (*name == nullptr) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, "the output is not one this module's runs returned");
    }
  });
}

const omnirt_cuda_engine_api kApi = {
    sizeof(omnirt_cuda_engine_api), OMNIRT_CUDA_ENGINE_API_VERSION,
    "libtorch " TORCH_VERSION,      &load,
    &run,                           &destroy,
    &output_name,                   &omnirt::torch_common::set_warning_sink};

}  // namespace

extern "C" __attribute__((visibility("default"))) const omnirt_cuda_engine_api*
omnirt_cuda_engine_get(void) {
  return &kApi;
}
