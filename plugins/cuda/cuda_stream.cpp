// Stream, event and graph slots of CudaBackend.
#include "cuda_stream.h"

#include <memory>

#include "cuda_backend.h"
#include "cuda_device.h"
#include "cuda_status.h"

namespace omnirt::cuda {
namespace {

using plugin::fail;

template <class T>
T& required(T* handle, const char* what) {
  if (handle == nullptr) fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string(what) + ": NULL");
  return *handle;
}

}  // namespace

omnirt_stream* CudaBackend::stream_create(int32_t device) {
  DeviceGuard guard(cuda(), checked_device(device));
  auto stream = std::make_unique<Stream>(Stream{nullptr, device});
  // Non-blocking: our streams do not serialize with the legacy default stream.
  OMNIRT_CUDA_CALL(cuda(), cudaStreamCreateWithFlags, &stream->handle, cudaStreamNonBlocking);
  return reinterpret_cast<omnirt_stream*>(stream.release());
}

void CudaBackend::stream_destroy(omnirt_stream* handle) {
  if (handle == nullptr) return;
  default_streams_.refuse_destroy(handle);
  std::unique_ptr<Stream> stream(stream_of(handle));
  DeviceGuard guard(cuda(), stream->device);
  OMNIRT_CUDA_CALL(cuda(), cudaStreamSynchronize, stream->handle);
  allocator(stream->device).stream_retired(stream->handle);
  OMNIRT_CUDA_CALL(cuda(), cudaStreamDestroy, stream->handle);
}

void CudaBackend::stream_synchronize(omnirt_stream* handle) {
  const Stream& stream = required(stream_of(handle), "stream");
  DeviceGuard guard(cuda(), stream.device);
  OMNIRT_CUDA_CALL(cuda(), cudaStreamSynchronize, stream.handle);
}

bool CudaBackend::stream_query(omnirt_stream* handle) {
  const Stream& stream = required(stream_of(handle), "stream");
  DeviceGuard guard(cuda(), stream.device);
  const cudaError_t status = cuda().cudaStreamQuery(stream.handle);
  if (status == cudaErrorNotReady) return false;
  check(cuda(), status, "cudaStreamQuery");
  return true;
}

void CudaBackend::stream_wait_event(omnirt_stream* stream_handle, omnirt_event* event_handle) {
  const Stream& stream = required(stream_of(stream_handle), "stream");
  const Event& event = required(event_of(event_handle), "event");
  DeviceGuard guard(cuda(), stream.device);
  OMNIRT_CUDA_CALL(cuda(), cudaStreamWaitEvent, stream.handle, event.handle, 0u);
}

// The legacy default stream (a null cudaStream_t, as NULL means to every
// slot, the engine and the kernels), with its device.
omnirt_stream* CudaBackend::stream_get_default(int32_t device) {
  return default_streams_.handle(checked_device(device), runtime_.device_count());
}

omnirt_event* CudaBackend::event_create(int32_t device) {
  DeviceGuard guard(cuda(), checked_device(device));
  auto event = std::make_unique<Event>(nullptr, device);
  OMNIRT_CUDA_CALL(cuda(), cudaEventCreateWithFlags, &event->handle, cudaEventDefault);
  return reinterpret_cast<omnirt_event*>(event.release());
}

void CudaBackend::event_destroy(omnirt_event* handle) {
  if (handle == nullptr) return;
  std::unique_ptr<Event> event(event_of(handle));
  DeviceGuard guard(cuda(), event->device);
  OMNIRT_CUDA_CALL(cuda(), cudaEventDestroy, event->handle);
}

void CudaBackend::event_record(omnirt_event* event_handle, omnirt_stream* stream_handle) {
  Event& event = required(event_of(event_handle), "event");
  if (stream_handle != nullptr && stream_of(stream_handle)->device != event.device) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, "event: created on device " +
                                             std::to_string(event.device) +
                                             ", cannot be recorded on a stream of device " +
                                             std::to_string(stream_of(stream_handle)->device));
  }
  DeviceGuard guard(cuda(), event.device);
  OMNIRT_CUDA_CALL(cuda(), cudaEventRecord, event.handle, cuda_stream(stream_handle));
  event.recorded.store(true);
}

bool CudaBackend::event_query(omnirt_event* handle) {
  const Event& event = required(event_of(handle), "event");
  DeviceGuard guard(cuda(), event.device);
  const cudaError_t status = cuda().cudaEventQuery(event.handle);
  if (status == cudaErrorNotReady) return false;
  check(cuda(), status, "cudaEventQuery");
  return true;
}

void CudaBackend::event_synchronize(omnirt_event* handle) {
  const Event& event = required(event_of(handle), "event");
  DeviceGuard guard(cuda(), event.device);
  OMNIRT_CUDA_CALL(cuda(), cudaEventSynchronize, event.handle);
}

float CudaBackend::event_elapsed_time(omnirt_event* start_handle, omnirt_event* end_handle) {
  const Event& start = required(event_of(start_handle), "start");
  const Event& end = required(event_of(end_handle), "end");
  plugin_common::require_recorded("cuda", start, end);
  if (start.device != end.device) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, "event_elapsed_time: start is an event of device " +
                                             std::to_string(start.device) + ", end of device " +
                                             std::to_string(end.device));
  }
  DeviceGuard guard(cuda(), end.device);
  float milliseconds = 0;
  OMNIRT_CUDA_CALL(cuda(), cudaEventElapsedTime, &milliseconds, start.handle, end.handle);
  return milliseconds;
}

void CudaBackend::stream_begin_capture(omnirt_stream* handle) {
  const Stream& stream = required(stream_of(handle), "stream");
  DeviceGuard guard(cuda(), stream.device);
  // Thread-local mode: other threads' CUDA calls are not affected by our capture.
  OMNIRT_CUDA_CALL(cuda(), cudaStreamBeginCapture, stream.handle, cudaStreamCaptureModeThreadLocal);
}

omnirt_graph* CudaBackend::stream_end_capture(omnirt_stream* handle) {
  const Stream& stream = required(stream_of(handle), "stream");
  DeviceGuard guard(cuda(), stream.device);
  auto graph = std::make_unique<Graph>(Graph{stream.device, nullptr, nullptr});
  OMNIRT_CUDA_CALL(cuda(), cudaStreamEndCapture, stream.handle, &graph->graph);
  const cudaError_t status = cuda().cudaGraphInstantiate(&graph->exec, graph->graph, 0ull);
  if (status != cudaSuccess) {
    cuda().cudaGraphDestroy(graph->graph);
    raise(cuda(), status, "cudaGraphInstantiate");
  }
  return reinterpret_cast<omnirt_graph*>(graph.release());
}

void CudaBackend::graph_launch(omnirt_graph* graph_handle, omnirt_stream* stream_handle) {
  const Graph& graph = required(graph_of(graph_handle), "graph");
  if (stream_handle != nullptr && stream_of(stream_handle)->device != graph.device) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, "graph: captured on device " +
                                             std::to_string(graph.device) +
                                             ", cannot be launched on a stream of device " +
                                             std::to_string(stream_of(stream_handle)->device));
  }
  DeviceGuard guard(cuda(), graph.device);
  OMNIRT_CUDA_CALL(cuda(), cudaGraphLaunch, graph.exec, cuda_stream(stream_handle));
}

void CudaBackend::graph_destroy(omnirt_graph* handle) {
  if (handle == nullptr) return;
  std::unique_ptr<Graph> graph(graph_of(handle));
  DeviceGuard guard(cuda(), graph->device);
  OMNIRT_CUDA_CALL(cuda(), cudaGraphExecDestroy, graph->exec);
  OMNIRT_CUDA_CALL(cuda(), cudaGraphDestroy, graph->graph);
}

}  // namespace omnirt::cuda
