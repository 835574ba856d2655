#include <cuda_runtime_api.h>

#include "graph_cache.h"

#include "engine_memory.h"

#include "torch_engine/dl_dtype.h"

#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>

namespace omnirt::cuda_engine {
namespace {

using PoolId = decltype(at::cuda::graph_pool_handle());

bool contiguous(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  int64_t stride = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] > 1 && t.strides[d] != stride) return false;
    stride *= t.shape[d];
  }
  return true;
}

// "[8x3x224x224 Float]": a signature for the log.
std::string describe(const std::vector<at::Tensor>& inputs) {
  std::string text = "[";
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string shape;
    for (int64_t d : inputs[i].sizes()) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    text += (i ? ", " : "") + (shape.empty() ? std::string("scalar") : shape) + " " +
            c10::toString(inputs[i].scalar_type());
  }
  return text + "]";
}

}  // namespace

// A captured graph with its static tensors and its allocator pool; held
// (OutputLease) while a caller holds one of its outputs.
struct GraphCache::Slot : OutputLease {
  explicit Slot(int d) : device(d) {}
  ~Slot() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (pooled) {
      try {  // the pool's memory returns once its last block (an output) is freed
        c10::cuda::CUDACachingAllocator::releasePool(c10::DeviceIndex(device), pool);
      } catch (...) {
      }
    }
  }
  // Same signature, on this device, each input contiguous: one copy per input feeds the graph.
  bool fits(const DLTensor* run_inputs, size_t num_inputs) const {
    if (!signature.matches(run_inputs, num_inputs)) return false;
    for (size_t i = 0; i < num_inputs; ++i) {
      const DLTensor& t = run_inputs[i];
      if (t.device.device_type != kDLCUDA || t.device.device_id != device || !contiguous(t)) {
        return false;
      }
    }
    return true;
  }

  const int device;
  Signature signature;
  std::vector<at::Tensor> inputs;   // static, contiguous: runs copy into them
  std::vector<NamedTensor> outputs;  // static: written by every replay
  cudaGraphExec_t exec = nullptr;
  PoolId pool{0, 0};
  bool pooled = false;  // the allocator has the pool: release it
  cudaStream_t last_stream = nullptr;
};

bool GraphCache::Signature::matches(const DLTensor* inputs, size_t num_inputs) const {
  if (dtypes.size() != num_inputs) return false;
  for (size_t i = 0; i < num_inputs; ++i) {
    const DLTensor& t = inputs[i];
    const std::vector<int64_t>& shape = shapes[i];
    const DLDataType dtype = torch_common::canonical(t.dtype);
    if (dtype.code != dtypes[i].code || dtype.bits != dtypes[i].bits ||
        dtype.lanes != dtypes[i].lanes || size_t(t.ndim) != shape.size()) {
      return false;
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      if (t.shape[d] != shape[d]) return false;
    }
  }
  return true;
}

GraphCache::Signature GraphCache::signature_of(const std::vector<at::Tensor>& inputs) {
  Signature s;
  for (const at::Tensor& t : inputs) {
    s.dtypes.push_back(torch_common::dl_dtype(t, ""));
    s.shapes.emplace_back(t.sizes().begin(), t.sizes().end());
  }
  return s;
}

GraphCache::GraphCache(int device, const void* origin, Forward forward)
    : device_(device), origin_(origin), forward_(std::move(forward)) {}

GraphCache::~GraphCache() {
  if (capture_stream_ != nullptr) {
    const c10::cuda::CUDAGuard on_device{c10::DeviceIndex(device_)};
    cudaStreamSynchronize(capture_stream_);
    cudaStreamDestroy(capture_stream_);
  }
}

bool GraphCache::uncapturable(const DLTensor* inputs, size_t num_inputs) const {
  for (const Signature& s : uncapturable_) {
    if (s.matches(inputs, num_inputs)) return true;
  }
  return false;
}

void GraphCache::run(const DLTensor* inputs, size_t num_inputs,
                     const c10::cuda::CUDAStream& current, std::vector<DLManagedTensor*>& out,
                     std::string& note) {
  std::lock_guard<std::mutex> lock(mutex_);
  // The hot path touches no at::Tensor of the caller: a signature match and
  // one copy per input.
  std::shared_ptr<Slot> slot;
  size_t same_signature = 0;
  for (const auto& s : slots_) {
    if (!s->fits(inputs, num_inputs)) continue;
    ++same_signature;
    if (s->held.load() == 0) {
      slot = s;
      break;
    }
  }
  if (!slot) {
    const std::vector<at::Tensor> args = wrap_all(inputs, num_inputs, device_);
    bool contiguous_args = true;  // graphs take contiguous inputs only
    for (const at::Tensor& t : args) contiguous_args = contiguous_args && t.is_contiguous();
    // Without a graph when every slot's outputs are held, for strided inputs,
    // and for a signature whose capture failed.
    if (same_signature >= kSlotsPerSignature || !contiguous_args ||
        uncapturable(inputs, num_inputs)) {
      hand_out_all(forward_(args, current), origin_, nullptr, out);
      return;
    }
    std::string failure;
    slot = capture(args, current, failure);
    if (!slot) {
      uncapturable_.push_back(signature_of(args));
      note = "CUDA graph capture failed for inputs " + describe(args) + " (" + failure +
             "); runs of these inputs go through the module without a graph";
      hand_out_all(forward_(args, current), origin_, nullptr, out);
      return;
    }
    slots_.push_back(slot);
  }
  if (slot->last_stream != current.stream()) {
    // The slot's last replay ran on another stream: let it finish first.
    c10::cuda::getStreamFromExternal(slot->last_stream, c10::DeviceIndex(device_)).synchronize();
    slot->last_stream = current.stream();
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    const DLTensor& t = inputs[i];
    at::Tensor& target = slot->inputs[i];
    C10_CUDA_CHECK(cudaMemcpyAsync(target.data_ptr(),
                                   static_cast<const char*>(t.data) + t.byte_offset,
                                   target.nbytes(), cudaMemcpyDeviceToDevice, current.stream()));
  }
  C10_CUDA_CHECK(cudaGraphLaunch(slot->exec, current.stream()));
  out.reserve(out.size() + slot->outputs.size());  // push_back cannot throw below
  for (const NamedTensor& t : slot->outputs) out.push_back(hand_out(t, origin_, slot));
}

std::shared_ptr<GraphCache::Slot> GraphCache::capture(const std::vector<at::Tensor>& args,
                                                      const c10::cuda::CUDAStream& current,
                                                      std::string& failure) {
  auto slot = std::make_shared<Slot>(device_);
  slot->signature = signature_of(args);
  for (const at::Tensor& t : args) slot->inputs.push_back(t.clone(at::MemoryFormat::Contiguous));
  if (capture_stream_ == nullptr) {
    C10_CUDA_CHECK(cudaStreamCreateWithFlags(&capture_stream_, cudaStreamNonBlocking));
  }
  // A stream of the cache's own: no other work can land in the capture.
  const c10::cuda::CUDAStream side =
      c10::cuda::getStreamFromExternal(capture_stream_, c10::DeviceIndex(device_));
  at::cuda::CUDAEvent ready;
  ready.record(current);
  ready.block(side);
  {
    c10::cuda::CUDAStreamGuard on_side(side);
    warm_outside_pools();  // the side stream's cuBLAS workspaces stay libtorch's
    // A warm-up that fails is the inputs' fault, not the capture's: it throws.
    for (int i = 0; i < kWarmupRuns; ++i) forward_(slot->inputs, side);
    failure = record(*slot, side);
  }
  at::cuda::CUDAEvent captured;
  captured.record(side);
  captured.block(current);
  slot->last_stream = current.stream();
  return failure.empty() ? slot : nullptr;
}

std::string GraphCache::record(Slot& slot, const c10::cuda::CUDAStream& side) {
  namespace allocator = c10::cuda::CUDACachingAllocator;
  const auto device = c10::DeviceIndex(device_);
  const cudaStream_t stream = side.stream();
  // What forward allocates on the capture stream comes from the slot's own
  // pool, kept for the replays.
  slot.pool = at::cuda::graph_pool_handle();
  allocator::beginAllocateToPool(device, slot.pool,
                                 [stream](cudaStream_t s) { return s == stream; });
  slot.pooled = true;
  const OutsidePools outside;  // not the module's pool: its filter would come first
  std::string failure;
  cudaError_t status = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  if (status == cudaSuccess) {
    try {
      slot.outputs = forward_(slot.inputs, side);
    } catch (const c10::Error& e) {
      failure = e.what_without_backtrace();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    cudaGraph_t graph = nullptr;
    status = cudaStreamEndCapture(stream, &graph);  // ends it, whatever happened inside
    if (failure.empty() && status != cudaSuccess) {
      failure = std::string("cudaStreamEndCapture: ") + cudaGetErrorString(status);
    }
    if (failure.empty()) {
      status = cudaGraphInstantiateWithFlags(&slot.exec, graph,
                                             cudaGraphInstantiateFlagAutoFreeOnLaunch);
      if (status != cudaSuccess) {
        slot.exec = nullptr;
        failure = std::string("cudaGraphInstantiateWithFlags: ") + cudaGetErrorString(status);
      }
    }
    if (graph != nullptr) cudaGraphDestroy(graph);
  } else {
    failure = std::string("cudaStreamBeginCapture: ") + cudaGetErrorString(status);
  }
  allocator::endAllocateToPool(device, slot.pool);
  if (!failure.empty()) {
    slot.outputs.clear();  // back into the pool, which the slot releases
    cudaGetLastError();    // capture errors are not sticky: leave none for libtorch's next check
  }
  return failure;
}

}  // namespace omnirt::cuda_engine
