// Streams and events of the ascend backend (aclrtStream, aclrtEvent).
// A NULL omnirt_stream is AscendCL's default stream of the device in use;
// stream_get_default names it per device (a null aclrtStream and the device).
#include <string>

#include "acl_status.h"
#include "ascend_backend.h"

namespace omnirt::ascend {

std::shared_ptr<AscendStream> AscendBackend::find_stream(omnirt_stream* stream) const {
  return stream != nullptr ? named_stream(stream) : nullptr;
}

std::shared_ptr<AscendStream> AscendBackend::named_stream(omnirt_stream* stream) const {
  if (auto default_stream = default_streams_.find(stream)) return default_stream;
  return streams_.find(stream);
}

omnirt_stream* AscendBackend::stream_get_default(int32_t device) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_STREAMS, "stream_get_default");
  return default_streams_.handle(device, rt.device_count());
}

omnirt_stream* AscendBackend::stream_create(int32_t device) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_STREAMS, "stream_create");
  auto scope = rt.on_device(device);
  aclrtStream handle = nullptr;
  rt.check(rt.api().aclrtCreateStream(&handle), "aclrtCreateStream");
  return streams_.add(std::make_shared<AscendStream>(AscendStream{handle, device}));
}

void AscendBackend::stream_destroy(omnirt_stream* stream) {
  if (stream == nullptr) return;
  default_streams_.refuse_destroy(stream);
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_STREAMS, "stream_destroy");
  const auto queue = streams_.remove(stream);
  auto scope = rt.on_device(queue->device);
  aclError rc = rt.api().aclrtSynchronizeStream(queue->handle);
  if (rc == ACL_SUCCESS) rc = rt.api().aclrtDestroyStream(queue->handle);
  if (rc != ACL_SUCCESS) streams_.restore(stream, queue);
  rt.check(rc, "aclrtDestroyStream");
}

void AscendBackend::stream_synchronize(omnirt_stream* stream) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_STREAMS, "stream_synchronize");
  const auto queue = named_stream(stream);
  auto scope = rt.on_device(queue->device);
  rt.check(rt.api().aclrtSynchronizeStream(queue->handle), "aclrtSynchronizeStream");
}

bool AscendBackend::stream_query(omnirt_stream* stream) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_STREAMS, "stream_query");
  const auto queue = named_stream(stream);
  auto scope = rt.on_device(queue->device);
  aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
  rt.check(rt.api().aclrtStreamQuery(queue->handle, &status), "aclrtStreamQuery");
  return status == ACL_STREAM_STATUS_COMPLETE;
}

// Waiting for an event that was never recorded waits for nothing, as in CUDA.
void AscendBackend::stream_wait_event(omnirt_stream* stream, omnirt_event* event) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_STREAM_WAIT_EVENT, "stream_wait_event");
  const auto queue = find_stream(stream);
  const auto marker = events_.find(event);
  if (!marker->recorded.load()) return;
  auto scope = rt.on_device(queue ? queue->device : marker->device);
  rt.check(rt.api().aclrtStreamWaitEvent(queue ? queue->handle : nullptr, marker->handle),
           "aclrtStreamWaitEvent");
}

omnirt_event* AscendBackend::event_create(int32_t device) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_EVENTS, "event_create");
  auto scope = rt.on_device(device);
  aclrtEvent handle = nullptr;
  rt.check(rt.api().aclrtCreateEvent(&handle), "aclrtCreateEvent");
  return events_.add(std::make_shared<AscendEvent>(handle, device));
}

void AscendBackend::event_destroy(omnirt_event* event) {
  if (event == nullptr) return;
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_EVENTS, "event_destroy");
  const auto marker = events_.remove(event);
  auto scope = rt.on_device(marker->device);
  const aclError rc = rt.api().aclrtDestroyEvent(marker->handle);
  if (rc != ACL_SUCCESS) events_.restore(event, marker);
  rt.check(rc, "aclrtDestroyEvent");
}

void AscendBackend::event_record(omnirt_event* event, omnirt_stream* stream) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_EVENTS, "event_record");
  const auto marker = events_.find(event);
  const auto queue = find_stream(stream);
  auto scope = rt.on_device(queue ? queue->device : marker->device);
  rt.check(rt.api().aclrtRecordEvent(marker->handle, queue ? queue->handle : nullptr),
           "aclrtRecordEvent");
  marker->recorded.store(true);
}

bool AscendBackend::event_query(omnirt_event* event) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_EVENTS, "event_query");
  return completed(rt, *events_.find(event));
}

bool AscendBackend::completed(AclRuntime& rt, const AscendEvent& marker) {
  if (!marker.recorded.load()) return true;
  auto scope = rt.on_device(marker.device);
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  rt.check(rt.api().aclrtQueryEventStatus(marker.handle, &status), "aclrtQueryEventStatus");
  return status == ACL_EVENT_RECORDED_STATUS_COMPLETE;
}

void AscendBackend::event_synchronize(omnirt_event* event) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_EVENTS, "event_synchronize");
  const auto marker = events_.find(event);
  if (!marker->recorded.load()) return;
  auto scope = rt.on_device(marker->device);
  rt.check(rt.api().aclrtSynchronizeEvent(marker->handle), "aclrtSynchronizeEvent");
}

float AscendBackend::event_elapsed_time(omnirt_event* start, omnirt_event* end) {
  AclRuntime& rt = runtime_for(OMNIRT_FEATURE_EVENT_TIMING, "event_elapsed_time");
  const auto first = events_.find(start);
  const auto last = events_.find(end);
  plugin_common::require_recorded("ascend", *first, *last);
  if (!completed(rt, *first) || !completed(rt, *last)) {
    plugin::fail(OMNIRT_STATUS_NOT_READY, "ascend: event_elapsed_time: an event has not completed");
  }
  auto scope = rt.on_device(first->device);
  float milliseconds = 0.0f;
  rt.check(rt.api().aclrtEventElapsedTime(&milliseconds, first->handle, last->handle),
           "aclrtEventElapsedTime");
  return milliseconds;
}

}  // namespace omnirt::ascend
