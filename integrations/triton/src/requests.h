// The requests of one Execute call: read and checked against the config, and
// grouped into batches that can run together.
#pragma once

#include <cstdint>
#include <vector>

#include "model_config.h"
#include "triton/core/tritonbackend.h"

namespace omnirt::triton {

/// One input of a request, as Triton holds it (valid until the request is released).
struct RequestInput {
  TRITONBACKEND_Input* input = nullptr;
  const int64_t* shape = nullptr;
  uint32_t ndim = 0;
  uint64_t byte_size = 0;
  uint32_t buffer_count = 0;
};

/// A request that passed the checks.
struct CheckedRequest {
  TRITONBACKEND_Request* request = nullptr;
  /// Rows it brings to the batch: dim 0 when the model batches, else 1.
  int64_t batch = 0;
  /// By config position (the order forward takes them).
  std::vector<RequestInput> inputs;
  /// Set once a response (outputs or error) was sent.
  bool answered = false;
  /// Set when that response carried the outputs.
  bool succeeded = false;
};

/// Reads `request`'s inputs and checks names, datatypes, shapes and sizes
/// against the config. Throws Error (INVALID_ARG naming the input) otherwise.
CheckedRequest check_request(const ModelConfig& config, TRITONBACKEND_Request* request);

/// Groups that run as one batch, as indices into `requests` in order: when
/// the model batches, requests whose inputs agree in every dimension but the
/// first; otherwise one request per group.
std::vector<std::vector<size_t>> group_requests(const ModelConfig& config,
                                                const std::vector<CheckedRequest>& requests);

/// The input's bytes when they are one buffer in host memory, else nullptr.
const void* single_host_buffer(const RequestInput& input);

/// Copies the input's bytes, buffer after buffer, to `dst` (host memory,
/// byte_size bytes). Throws Error for a buffer outside host memory.
void copy_input(const RequestInput& input, uint8_t* dst);

}  // namespace omnirt::triton
