// A compile tier's CUDA graphs, for either module format: one graph per input
// signature (dtypes and shapes), captured on the signature's first run after
// warm-up runs, on a stream of the cache's own, and replayed on the caller's
// stream after that. A graph owns static input and output tensors: a run
// copies the inputs in, replays, and hands the static outputs out without a
// copy. While a caller holds a graph's outputs the graph is busy, and a run
// uses (or captures, up to kSlotsPerSignature) another, running the module
// itself beyond that, so that an output is never overwritten under its
// owner. Inputs that are not contiguous also run the module itself.
//
// A capture that fails (the module does something a graph cannot hold: a
// host synchronization, a copy to the host, random numbers) leaves no state
// behind; its signature runs the module itself from then on, and the run
// that found out says so in its note.
#ifndef OMNIRT_CUDA_ENGINE_GRAPH_CACHE_H_
#define OMNIRT_CUDA_ENGINE_GRAPH_CACHE_H_

#include <c10/cuda/CUDAStream.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine_tensors.h"

namespace omnirt::cuda_engine {

class GraphCache {
 public:
  /// The module's forward on `inputs`, enqueued on `stream` (current on this
  /// thread), its outputs named. Called with the cache's lock held: never
  /// concurrently.
  using Forward = std::function<std::vector<NamedTensor>(const std::vector<at::Tensor>& inputs,
                                                         const c10::cuda::CUDAStream& stream)>;

  static constexpr size_t kSlotsPerSignature = 4;
  /// Before a capture: cuBLAS handles, workspaces, lazily loaded kernels, JIT profiling.
  static constexpr int kWarmupRuns = 3;

  /// Runs of module `origin` (which its outputs name as their maker).
  GraphCache(int device, const void* origin, Forward forward);
  ~GraphCache();
  GraphCache(const GraphCache&) = delete;
  GraphCache& operator=(const GraphCache&) = delete;

  /// One run, as omnirt_cuda_engine_module::run: replayed, captured first, or
  /// through the module itself; `note` says when a capture failed.
  void run(const DLTensor* inputs, size_t num_inputs, const c10::cuda::CUDAStream& stream,
           std::vector<DLManagedTensor*>& out, std::string& note);

 private:
  struct Slot;

  // Dtypes (in canonical form: either bool form matches) and shapes of a
  // run's inputs.
  struct Signature {
    std::vector<DLDataType> dtypes;
    std::vector<std::vector<int64_t>> shapes;
    bool matches(const DLTensor* inputs, size_t num_inputs) const;
  };
  static Signature signature_of(const std::vector<at::Tensor>& inputs);

  // A slot captured for `args` (ordered after `current`), or null with why in `failure`.
  std::shared_ptr<Slot> capture(const std::vector<at::Tensor>& args,
                                const c10::cuda::CUDAStream& current, std::string& failure);
  // One forward of slot's static inputs recorded into its graph; "" or why not.
  std::string record(Slot& slot, const c10::cuda::CUDAStream& side);
  bool uncapturable(const DLTensor* inputs, size_t num_inputs) const;

  const int device_;
  const void* const origin_;
  const Forward forward_;
  std::mutex mutex_;  // guards everything below, and every forward_ call
  std::vector<std::shared_ptr<Slot>> slots_;
  std::vector<Signature> uncapturable_;  // signatures whose capture failed
  cudaStream_t capture_stream_ = nullptr;  // made on the first capture
};

}  // namespace omnirt::cuda_engine

#endif  // OMNIRT_CUDA_ENGINE_GRAPH_CACHE_H_
