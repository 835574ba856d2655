// Answering requests: a response with the request's rows of each requested
// output, or an error response.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <exception>
#include <functional>

#include "error.h"
#include "model_config.h"
#include "triton/core/tritonbackend.h"

namespace omnirt::triton {

/// The module output of `spec`, readable on the host and already checked
/// against the config.
using OutputLookup = std::function<const DLTensor&(const TensorSpec& spec)>;

/// Sends `request` its response: each output it asks for (all of the config's
/// when it names none), rows [first_row, first_row + rows) of the batch when
/// the model batches, the whole tensor otherwise. Throws Error before
/// anything is sent; the request is then still owed a response.
void send_outputs(TRITONBACKEND_Request* request, const ModelConfig& config, const OutputLookup& output,
                  int64_t first_row, int64_t rows);

/// Sends `request` a response carrying `error`: an Error keeps its code,
/// anything else is INTERNAL. Never throws; a failure is logged.
void send_error(TRITONBACKEND_Request* request, const std::exception& error) noexcept;

}  // namespace omnirt::triton
