// Streams, events and captured graphs: the objects behind the ABI's opaque
// handles. Each remembers its device so that calls on it make that device
// current, whatever the calling thread had selected. Handles are trusted as
// CUDA trusts its own: a stale one is undefined behaviour, as it is there.
#ifndef OMNIRT_PLUGINS_CUDA_CUDA_STREAM_H_
#define OMNIRT_PLUGINS_CUDA_CUDA_STREAM_H_

#include "cuda_symbols.h"
#include "omnirt/types.h"
#include "omnirt_plugin_common/device_objects.h"

namespace omnirt::cuda {

using Stream = plugin_common::DeviceStream<cudaStream_t>;
using Event = plugin_common::DeviceEvent<cudaEvent_t>;

struct Graph {
  int32_t device;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
};

inline Stream* stream_of(omnirt_stream* s) { return reinterpret_cast<Stream*>(s); }
inline Event* event_of(omnirt_event* e) { return reinterpret_cast<Event*>(e); }
inline Graph* graph_of(omnirt_graph* g) { return reinterpret_cast<Graph*>(g); }

/// The CUDA stream of a handle; NULL is the legacy default stream.
inline cudaStream_t cuda_stream(omnirt_stream* s) {
  return s != nullptr ? stream_of(s)->handle : nullptr;
}

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_STREAM_H_
