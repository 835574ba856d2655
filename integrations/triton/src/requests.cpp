#include "requests.h"

#include <algorithm>
#include <cstring>

#include "setting_values.h"
#include "triton_api.h"

namespace omnirt::triton {
namespace {

bool in_host_memory(TRITONSERVER_MemoryType type) {
  return type == TRITONSERVER_MEMORY_CPU || type == TRITONSERVER_MEMORY_CPU_PINNED;
}

bool same_sample_shape(const CheckedRequest& a, const CheckedRequest& b) {
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    const RequestInput& x = a.inputs[i];
    const RequestInput& y = b.inputs[i];
    if (x.ndim != y.ndim || !std::equal(x.shape + 1, x.shape + x.ndim, y.shape + 1)) return false;
  }
  return true;
}

}  // namespace

CheckedRequest check_request(const ModelConfig& config, TRITONBACKEND_Request* request) {
  CheckedRequest checked;
  checked.request = request;
  uint32_t count = 0;
  check_triton(TRITONBACKEND_RequestInputCount(request, &count), "reading the request");
  if (count != config.inputs.size()) {
    std::vector<std::string> names;
    for (const TensorSpec& spec : config.inputs) names.push_back("'" + spec.name + "'");
    throw Error(TRITONSERVER_ERROR_INVALID_ARG,
                "model '" + config.name + "' takes " + std::to_string(config.inputs.size()) + " input(s) (" +
                    join_names(names) + "), the request has " + std::to_string(count));
  }
  for (const TensorSpec& spec : config.inputs) {
    RequestInput in;
    if (TRITONSERVER_Error* error = TRITONBACKEND_RequestInput(request, spec.name.c_str(), &in.input)) {
      TRITONSERVER_ErrorDelete(error);
      throw Error(TRITONSERVER_ERROR_INVALID_ARG,
                  "input '" + spec.name + "' of model '" + config.name + "' is missing from the request");
    }
    TRITONSERVER_DataType datatype = TRITONSERVER_TYPE_INVALID;
    check_triton(TRITONBACKEND_InputProperties(in.input, nullptr, &datatype, &in.shape, &in.ndim,
                                               &in.byte_size, &in.buffer_count),
                 "reading a request input");
    const int64_t rows = check_request_input(config, spec, datatype, in.shape, in.ndim, in.byte_size);
    if (!checked.inputs.empty() && rows != checked.batch) {
      throw Error(TRITONSERVER_ERROR_INVALID_ARG, "input '" + spec.name + "' of model '" + config.name +
                                                      "' has batch size " + std::to_string(rows) +
                                                      ", input '" + config.inputs.front().name + "' has " +
                                                      std::to_string(checked.batch));
    }
    checked.batch = rows;
    checked.inputs.push_back(in);
  }
  return checked;
}

std::vector<std::vector<size_t>> group_requests(const ModelConfig& config,
                                                const std::vector<CheckedRequest>& requests) {
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < requests.size(); ++i) {
    auto fits = [&](const std::vector<size_t>& group) {
      return config.batching() && same_sample_shape(requests[group.front()], requests[i]);
    };
    auto group = std::find_if(groups.begin(), groups.end(), fits);
    if (group == groups.end()) {
      groups.push_back({i});
    } else {
      group->push_back(i);
    }
  }
  return groups;
}

const void* single_host_buffer(const RequestInput& input) {
  if (input.buffer_count != 1) return nullptr;
  const void* buffer = nullptr;
  uint64_t size = 0;
  TRITONSERVER_MemoryType type = TRITONSERVER_MEMORY_CPU;
  int64_t type_id = 0;
  if (TRITONSERVER_Error* error =
          TRITONBACKEND_InputBuffer(input.input, 0, &buffer, &size, &type, &type_id)) {
    TRITONSERVER_ErrorDelete(error);
    return nullptr;
  }
  return in_host_memory(type) && size == input.byte_size ? buffer : nullptr;
}

void copy_input(const RequestInput& input, uint8_t* dst) {
  uint64_t copied = 0;
  for (uint32_t b = 0; b < input.buffer_count; ++b) {
    const void* buffer = nullptr;
    uint64_t size = 0;
    TRITONSERVER_MemoryType type = TRITONSERVER_MEMORY_CPU;
    int64_t type_id = 0;
    check_triton(TRITONBACKEND_InputBuffer(input.input, b, &buffer, &size, &type, &type_id),
                 "reading a request input's data");
    if (!in_host_memory(type)) {
      throw Error(TRITONSERVER_ERROR_UNSUPPORTED,
                  "an input arrived in GPU memory (CUDA shared memory); the omnirt backend takes "
                  "inputs in system memory");
    }
    if (copied + size > input.byte_size) {
      throw Error(TRITONSERVER_ERROR_INVALID_ARG, "an input's buffers hold more bytes than its shape");
    }
    std::memcpy(dst + copied, buffer, size);
    copied += size;
  }
  if (copied != input.byte_size) {
    throw Error(TRITONSERVER_ERROR_INVALID_ARG, "an input's buffers hold fewer bytes than its shape");
  }
}

}  // namespace omnirt::triton
