#include "responses.h"

#include <memory>
#include <vector>

#include "host_copy.h"
#include "tensor_types.h"
#include "triton_api.h"

namespace omnirt::triton {
namespace {

struct ResponseDeleter {
  void operator()(TRITONBACKEND_Response* response) const {
    if (TRITONSERVER_Error* error = TRITONBACKEND_ResponseDelete(response)) TRITONSERVER_ErrorDelete(error);
  }
};
using Response = std::unique_ptr<TRITONBACKEND_Response, ResponseDeleter>;

Response new_response(TRITONBACKEND_Request* request) {
  TRITONBACKEND_Response* response = nullptr;
  check_triton(TRITONBACKEND_ResponseNew(&response, request), "creating a response");
  return Response(response);
}

void add_output(TRITONBACKEND_Response* response, const TensorSpec& spec, const DLTensor& tensor,
                bool batching, int64_t first_row, int64_t rows) {
  std::vector<int64_t> shape(tensor.shape, tensor.shape + tensor.ndim);
  if (batching) shape[0] = rows;
  uint64_t bytes = element_size(spec.datatype);
  for (int64_t size : shape) bytes *= static_cast<uint64_t>(size);

  TRITONBACKEND_Output* output = nullptr;
  check_triton(TRITONBACKEND_ResponseOutput(response, &output, spec.name.c_str(), spec.datatype, shape.data(),
                                            static_cast<uint32_t>(shape.size())),
               "creating output tensor");
  void* buffer = nullptr;
  TRITONSERVER_MemoryType type = TRITONSERVER_MEMORY_CPU;
  int64_t type_id = 0;
  check_triton(TRITONBACKEND_OutputBuffer(output, &buffer, bytes, &type, &type_id),
               "allocating an output buffer");
  if (bytes == 0) return;
  if (type != TRITONSERVER_MEMORY_CPU && type != TRITONSERVER_MEMORY_CPU_PINNED) {
    throw Error(TRITONSERVER_ERROR_UNSUPPORTED,
                "output '" + spec.name +
                    "' was asked for in GPU memory (CUDA shared memory); the omnirt "
                    "backend writes outputs to system memory");
  }
  copy_rows(tensor, batching ? first_row : 0, batching ? rows : (tensor.ndim > 0 ? tensor.shape[0] : 1),
            buffer);
}

}  // namespace

void send_outputs(TRITONBACKEND_Request* request, const ModelConfig& config, const OutputLookup& output,
                  int64_t first_row, int64_t rows) {
  Response response = new_response(request);
  uint32_t requested = 0;
  check_triton(TRITONBACKEND_RequestOutputCount(request, &requested), "reading the requested outputs");
  auto add = [&](const TensorSpec& spec) {
    add_output(response.get(), spec, output(spec), config.batching(), first_row, rows);
  };
  if (requested == 0) {
    for (const TensorSpec& spec : config.outputs) add(spec);
  }
  for (uint32_t i = 0; i < requested; ++i) {
    const char* name = nullptr;
    check_triton(TRITONBACKEND_RequestOutputName(request, i, &name), "reading the requested outputs");
    const TensorSpec* spec = config.find_output(name);
    if (spec == nullptr) {
      throw Error(TRITONSERVER_ERROR_INVALID_ARG, "model '" + config.name + "' has no output '" + name + "'");
    }
    add(*spec);
  }
  // Triton owns the response from the call on, whatever it returns.
  check_triton(TRITONBACKEND_ResponseSend(response.release(), TRITONSERVER_RESPONSE_COMPLETE_FINAL, nullptr),
               "sending a response");
}

void send_error(TRITONBACKEND_Request* request, const std::exception& error) noexcept {
  const auto* known = dynamic_cast<const Error*>(&error);
  TRITONSERVER_Error* triton_error =
      TRITONSERVER_ErrorNew(known != nullptr ? known->code() : TRITONSERVER_ERROR_INTERNAL, error.what());
  try {
    Response response = new_response(request);
    check_triton(
        TRITONBACKEND_ResponseSend(response.release(), TRITONSERVER_RESPONSE_COMPLETE_FINAL, triton_error),
        "sending an error response");
  } catch (const std::exception& e) {
    log(TRITONSERVER_LOG_ERROR,
        std::string("could not answer a request with its error (") + error.what() + "): " + e.what());
  }
  TRITONSERVER_ErrorDelete(triton_error);
}

}  // namespace omnirt::triton
