// TorchScript on a CUDA libtorch. Eager: the module, eval(). Compile: frozen
// and optimized for inference, run through a GraphCache (graph_cache.h) when
// forward takes tensors only (a graph would keep a scalar argument's first
// value). Arguments, results and their names as in the cpu engine
// (plugins/common/torch_engine).
#include "torch_engine.h"

#include <torch/script.h>

#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "engine_memory.h"
#include "graph_cache.h"
#include "torch_engine/forward_signature.h"
#include "torch_engine/warning_capture.h"

namespace omnirt::cuda_engine {
namespace {

using omnirt::plugin::fail;
using torch_common::ForwardSignature;

constexpr const char* kEngine = "the cuda engine";

// forward's stack for `n` inputs, with room for the `self` that
// Method::operator() inserts first: the insert then moves the inputs up
// instead of reallocating.
std::vector<c10::IValue> stack_for(size_t n) {
  std::vector<c10::IValue> stack;
  stack.reserve(n + 1);
  return stack;
}

class TorchScriptModule final : public omnirt_cuda_engine_module {
 public:
  // `m` as it will run: frozen and optimized already for the compile tier.
  // Refuses a forward whose arguments or result the engine cannot pass.
  TorchScriptModule(torch::jit::Module m, int device_index, bool compile_tier)
      : omnirt_cuda_engine_module(device_index),
        module_(std::move(m)),
        forward_method_(module_.get_method("forward")),
        signature_(ForwardSignature::of(forward_method_.function().getSchema(), kEngine)) {
    torch_common::check_result_type(forward_method_.function().getSchema(), kEngine);
    if (compile_tier && !signature_.takes_scalars()) {
      graphs_.emplace(device_index, this, [this](const std::vector<at::Tensor>& inputs,
                                                 const c10::cuda::CUDAStream&) {
        std::vector<c10::IValue> stack = stack_for(inputs.size());
        for (const at::Tensor& t : inputs) stack.emplace_back(t);
        return forward(std::move(stack));
      });
    }
  }

  void run(const DLTensor* inputs, size_t num_inputs, const c10::cuda::CUDAStream& stream,
           std::vector<DLManagedTensor*>& out, std::string& note) override {
    if (graphs_) {
      torch_common::check_input_count(signature_, num_inputs);  // graphs take tensors as they come
      return graphs_->run(inputs, num_inputs, stream, out, note);
    }
    const int on = device;
    std::vector<c10::IValue> stack = torch_common::to_arguments(
        signature_, inputs, num_inputs,
        [on](const DLTensor& t, size_t index, const std::string& name) {
          return wrap(t, on, index, name);
        });
    hand_out_all(forward(std::move(stack)), this, nullptr, out);
  }

 private:
  // Runs forward on `stack` (the inputs, with room for `self`) and flattens its result.
  std::vector<NamedTensor> forward(std::vector<c10::IValue> stack) {
    c10::InferenceMode inference;  // a graph replay needs none: it is set here only
    c10::IValue result;
    try {
      result = forward_method_(std::move(stack));
    } catch (const c10::Error&) {
      throw;  // guarded() tells its kinds apart
    } catch (const std::runtime_error& e) {
      // PyTorch 2.x's interpreter rethrows what the model's code raised (a
      // wrong dtype, a shape mismatch) as std::runtime_error: the model
      // refused these inputs, as the cpu engine reports it.
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string("forward failed: ") + e.what());
    }
    return torch_common::flatten_result(result);
  }

  torch::jit::Module module_;
  // `module_`'s forward, looked up once: Module::forward looks it up by name
  // on every call. Method::operator() is const; concurrent runs share it.
  torch::jit::Method forward_method_;
  const ForwardSignature signature_;
  std::optional<GraphCache> graphs_;  // the compile tier's
};

}  // namespace

omnirt_status load_torchscript(const void* data, size_t size, const char* path, int32_t tier,
                               int32_t device, omnirt_cuda_engine_module** out, char* message,
                               size_t capacity) noexcept {
  torch_common::WarningCapture warnings;
  return guarded(message, capacity, [&] {
    check_load_arguments(tier, device);
    const c10::Device target(c10::kCUDA, c10::DeviceIndex(device));
    const bool graphs = tier == OMNIRT_TIER_COMPILE;
    torch::NoGradGuard no_grad;
    // The weights, and what freezing allocates, come from the module's pool.
    std::shared_ptr<ModulePool> pool = pool_for_load(device, false);
    const PoolScope in_pool(pool.get());
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
    auto loaded = std::make_unique<TorchScriptModule>(std::move(module), device, graphs);
    loaded->pool = std::move(pool);
    *out = loaded.release();
  });
}

}  // namespace omnirt::cuda_engine
