// CNRT queues and notifiers as the backend's streams and events.
// A NULL omnirt_stream is CNRT's default queue of the device in use;
// stream_get_default names it per device (a null cnrtQueue_t and the device).
#include "cambricon_backend.h"
#include "cnrt_status.h"

namespace omnirt::cambricon {
namespace {

// cnrtQueueQuery and cnrtQueryNotifier answer "busy" with an error code.
bool is_pending(cnrtRet_t rc) { return rc == cnrtErrorBusy || rc == cnrtErrorNotReady; }

}  // namespace

std::shared_ptr<CambriconQueue> CambriconBackend::find_queue(omnirt_stream* stream) const {
  return stream != nullptr ? named_queue(stream) : nullptr;
}

std::shared_ptr<CambriconQueue> CambriconBackend::named_queue(omnirt_stream* stream) const {
  if (auto default_queue = default_queues_.find(stream)) return default_queue;
  return queues_.find(stream);
}

omnirt_stream* CambriconBackend::stream_get_default(int32_t device) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_STREAMS, "stream_get_default");
  return default_queues_.handle(device, rt.device_count());
}

omnirt_stream* CambriconBackend::stream_create(int32_t device) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_STREAMS, "stream_create");
  auto scope = rt.on_device(device);
  cnrtQueue_t handle = nullptr;
  rt.check(rt.api().cnrtQueueCreate(&handle), "cnrtQueueCreate");
  return queues_.add(std::make_shared<CambriconQueue>(CambriconQueue{handle, device}));
}

// cnrtQueueDestroy returns at once and drops pending work later; the ABI
// promises the work is done first.
void CambriconBackend::stream_destroy(omnirt_stream* stream) {
  if (stream == nullptr) return;
  default_queues_.refuse_destroy(stream);
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_STREAMS, "stream_destroy");
  const auto queue = queues_.remove(stream);
  auto scope = rt.on_device(queue->device);
  cnrtRet_t rc = rt.api().cnrtQueueSync(queue->handle);
  if (rc == cnrtSuccess) rc = rt.api().cnrtQueueDestroy(queue->handle);
  if (rc != cnrtSuccess) queues_.restore(stream, queue);
  rt.check(rc, "cnrtQueueDestroy");
}

void CambriconBackend::stream_synchronize(omnirt_stream* stream) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_STREAMS, "stream_synchronize");
  const auto queue = named_queue(stream);
  auto scope = rt.on_device(queue->device);
  rt.check(rt.api().cnrtQueueSync(queue->handle), "cnrtQueueSync");
}

bool CambriconBackend::stream_query(omnirt_stream* stream) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_STREAMS, "stream_query");
  const auto queue = named_queue(stream);
  auto scope = rt.on_device(queue->device);
  const cnrtRet_t rc = rt.api().cnrtQueueQuery(queue->handle);
  if (is_pending(rc)) return false;
  rt.check(rc, "cnrtQueueQuery");
  return true;
}

// Waiting for a notifier that was never placed waits for nothing, as in CUDA.
void CambriconBackend::stream_wait_event(omnirt_stream* stream, omnirt_event* event) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_STREAM_WAIT_EVENT, "stream_wait_event");
  const auto queue = find_queue(stream);
  const auto notifier = notifiers_.find(event);
  if (!notifier->recorded.load()) return;
  auto scope = rt.on_device(queue ? queue->device : notifier->device);
  // flag: reserved by CNRT, must be 0.
  rt.check(rt.api().cnrtQueueWaitNotifier(notifier->handle, queue ? queue->handle : nullptr, 0),
           "cnrtQueueWaitNotifier");
}

omnirt_event* CambriconBackend::event_create(int32_t device) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_EVENTS, "event_create");
  auto scope = rt.on_device(device);
  cnrtNotifier_t handle = nullptr;
  rt.check(rt.api().cnrtNotifierCreate(&handle), "cnrtNotifierCreate");
  return notifiers_.add(std::make_shared<CambriconNotifier>(handle, device));
}

void CambriconBackend::event_destroy(omnirt_event* event) {
  if (event == nullptr) return;
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_EVENTS, "event_destroy");
  const auto notifier = notifiers_.remove(event);
  auto scope = rt.on_device(notifier->device);
  const cnrtRet_t rc = rt.api().cnrtNotifierDestroy(notifier->handle);
  if (rc != cnrtSuccess) notifiers_.restore(event, notifier);
  rt.check(rc, "cnrtNotifierDestroy");
}

void CambriconBackend::event_record(omnirt_event* event, omnirt_stream* stream) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_EVENTS, "event_record");
  const auto notifier = notifiers_.find(event);
  const auto queue = find_queue(stream);
  auto scope = rt.on_device(queue ? queue->device : notifier->device);
  rt.check(rt.api().cnrtPlaceNotifier(notifier->handle, queue ? queue->handle : nullptr),
           "cnrtPlaceNotifier");
  notifier->recorded.store(true);
}

bool CambriconBackend::event_query(omnirt_event* event) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_EVENTS, "event_query");
  return completed(rt, *notifiers_.find(event));
}

bool CambriconBackend::completed(CnrtRuntime& rt, const CambriconNotifier& notifier) {
  if (!notifier.recorded.load()) return true;
  auto scope = rt.on_device(notifier.device);
  const cnrtRet_t rc = rt.api().cnrtQueryNotifier(notifier.handle);
  if (is_pending(rc)) return false;
  rt.check(rc, "cnrtQueryNotifier");
  return true;
}

void CambriconBackend::event_synchronize(omnirt_event* event) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_EVENTS, "event_synchronize");
  const auto notifier = notifiers_.find(event);
  if (!notifier->recorded.load()) return;
  auto scope = rt.on_device(notifier->device);
  rt.check(rt.api().cnrtWaitNotifier(notifier->handle), "cnrtWaitNotifier");
}

// cnrtNotifierDuration measures device time between the two notifiers, in
// microseconds; it exists in every CNRT release this backend supports.
float CambriconBackend::event_elapsed_time(omnirt_event* start, omnirt_event* end) {
  CnrtRuntime& rt = runtime_for(OMNIRT_FEATURE_EVENT_TIMING, "event_elapsed_time");
  const auto first = notifiers_.find(start);
  const auto last = notifiers_.find(end);
  plugin_common::require_recorded("cambricon", *first, *last);
  if (!completed(rt, *first) || !completed(rt, *last)) {
    plugin::fail(OMNIRT_STATUS_NOT_READY,
                 "cambricon: event_elapsed_time: an event has not completed");
  }
  auto scope = rt.on_device(first->device);
  float microseconds = 0.0f;
  rt.check(rt.api().cnrtNotifierDuration(first->handle, last->handle, &microseconds),
           "cnrtNotifierDuration");
  return microseconds / 1000.0f;
}

}  // namespace omnirt::cambricon
