// A Triton model configuration as the omnirt backend serves it: inputs and
// outputs mapped to the module's positions, batching, the model file and the
// OmniRT parameters. Pure: parsed from the JSON Triton gives the backend.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

#include "triton/core/tritonserver.h"

namespace omnirt::triton {

/// One input or output of the config.
struct TensorSpec {
  std::string name;
  TRITONSERVER_DataType datatype = TRITONSERVER_TYPE_INVALID;
  /// As in the config: without the batch dimension when the model batches;
  /// -1 matches any size.
  std::vector<int64_t> dims;
  /// Inputs: the argument of forward it is passed as. Outputs: the index in
  /// the module's (flattened) outputs. From a NAME__<index> name, the
  /// convention of Triton's PyTorch backend, else the order in the config.
  size_t position = 0;
};

/// The model config's `parameters` the backend reads (all string values).
struct WrapParameters {
  /// `omnirt_backend`: OmniRT backend name, or "auto" for the first available
  /// one that computes on the instance's kind of memory.
  std::string backend = "auto";
  /// `compile`: false passes OMNIRT_WRAP_DISABLE_COMPILE to wrap_module.
  bool compile = true;
  /// `tag`: wrap_module's tag; picks the tier order (the OmniRT config's
  /// wrap_module.policies) and the override tier. "" (the default) has no
  /// override, so that a model is never served by a named op unasked.
  std::string tag;
  /// `module_format`: the format tag the model file is handed to the engine
  /// with ("torchscript"; "aoti" where the engine has AOTInductor).
  std::string format = "torchscript";
};

struct ModelConfig {
  std::string name;
  /// > 0: requests carry a leading batch dimension, and the requests of one
  /// Execute are run as one batch.
  int64_t max_batch_size = 0;
  /// Sorted by position, which runs 0..n-1.
  std::vector<TensorSpec> inputs;
  /// In config order.
  std::vector<TensorSpec> outputs;
  /// `default_model_filename`, "model.pt" when empty.
  std::string model_filename = "model.pt";
  WrapParameters wrap;
  /// Parameters given that the backend does not read (e.g. the PyTorch
  /// backend's INFERENCE_MODE), for the log.
  std::vector<std::string> unused_parameters;

  bool batching() const { return max_batch_size > 0; }
  /// The input or output named `name`, or nullptr.
  const TensorSpec* find_input(const std::string& tensor_name) const;
  const TensorSpec* find_output(const std::string& tensor_name) const;
};

/// Parses the model configuration JSON of TRITONBACKEND_ModelConfig (version
/// 1). Throws Error naming the field for what the backend cannot serve:
/// INVALID_ARG for a malformed config, UNSUPPORTED for a feature it lacks
/// (reshape, optional or shape-tensor inputs, ragged or sequence batching,
/// strings and types OmniRT has no dtype for).
ModelConfig parse_model_config(const std::string& json);

/// "[2,3,-1]".
std::string shape_text(const int64_t* shape, size_t ndim);

/// Checks one input of a request against its spec: datatype, shape (with the
/// batch dimension when the model batches) and byte size. Returns the
/// request's batch size (dim 0 when batching, else 1). Throws
/// Error(INVALID_ARG) naming the input.
int64_t check_request_input(const ModelConfig& config, const TensorSpec& spec, TRITONSERVER_DataType datatype,
                            const int64_t* shape, uint32_t ndim, uint64_t byte_size);

/// Checks the module's output `tensor` for `spec` after a run of `batch` rows:
/// datatype, rank and dims. Throws Error(INTERNAL) naming the output when the
/// module and the config disagree.
void check_module_output(const ModelConfig& config, const TensorSpec& spec, const DLTensor& tensor,
                         int64_t batch);

}  // namespace omnirt::triton
