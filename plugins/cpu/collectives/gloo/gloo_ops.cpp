#include "gloo_ops.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/broadcast.h>
#include <gloo/types.h>

#include <cstring>
#include <vector>

#include "omnirt_plugin_common/collectives.h"
#include "reductions.h"

namespace omnirt::cpu::gloo_lib {
namespace {

using plugin_common::dtype_size;

// Slot prefixes of our own operations, apart from gloo's (0x01..0x08).
constexpr uint8_t kReduceScatterSlotPrefix = 0x40;
constexpr uint8_t kTransferSlotPrefix = 0x41;

// gloo sizes chunks by the element type it is given: an unsigned type of the
// dtype's size keeps every chunk on element boundaries for the reduction.
template <class Body>
void with_element_type(int32_t dtype, Body&& body) {
  switch (dtype_size(dtype)) {
    case 1: return body(uint8_t{});
    case 2: return body(uint16_t{});
    case 4: return body(uint32_t{});
    default: return body(uint64_t{});
  }
}

template <class T>
T* writable(const void* input) {
  // gloo takes inputs as T*, and only reads them.
  return static_cast<T*>(const_cast<void*>(input));
}

// The slot of step `step` of one of our operations: a fresh tag per step, so
// that any number of ranks (and steps) fits.
uint64_t step_slot(uint8_t prefix, uint32_t tag, uint32_t step) {
  return gloo::Slot::build(prefix, tag ^ (step * 0x9e3779b9u));
}

}  // namespace

void all_reduce(const Context& context, const omnirt_cpu_gloo_op& op, uint32_t tag,
                std::chrono::milliseconds timeout) {
  with_element_type(op.dtype, [&](auto element) {
    using T = decltype(element);
    gloo::AllreduceOptions options(context);
    if (op.send != op.recv) options.setInput(writable<T>(op.send), op.count);
    options.setOutput(static_cast<T*>(op.recv), op.count);
    options.setReduceFunction(reduce_function(op.dtype, op.reduce_op));
    options.setTag(tag);
    options.setTimeout(timeout);
    gloo::allreduce(options);
  });
  if (op.reduce_op == OMNIRT_REDUCE_AVG) divide_by(op.recv, op.count, op.dtype, context->size);
}

void all_gather(const Context& context, const omnirt_cpu_gloo_op& op, uint32_t tag,
                std::chrono::milliseconds timeout) {
  const size_t bytes = op.count * dtype_size(op.dtype);
  auto* out = static_cast<uint8_t*>(op.recv);
  gloo::AllgatherOptions options(context);
  // Without an input gloo takes this rank's part from its place in the output.
  if (op.send != out + bytes * static_cast<size_t>(context->rank)) {
    options.setInput(writable<uint8_t>(op.send), bytes);
  }
  options.setOutput(out, bytes * static_cast<size_t>(context->size));
  options.setTag(tag);
  options.setTimeout(timeout);
  gloo::allgather(options);
}

void broadcast(const Context& context, const omnirt_cpu_gloo_op& op, uint32_t tag,
               std::chrono::milliseconds timeout) {
  const size_t bytes = op.count * dtype_size(op.dtype);
  gloo::BroadcastOptions options(context);
  if (context->rank == op.peer && op.send != op.recv) {
    options.setInput(writable<uint8_t>(op.send), bytes);
  }
  options.setOutput(static_cast<uint8_t*>(op.recv), bytes);
  options.setRoot(op.peer);
  options.setTag(tag);
  options.setTimeout(timeout);
  gloo::broadcast(options);
}

// A ring: in step s, rank r sends its partial sum of chunk (r - s - 1) to
// rank r + 1 and adds the partial sum of chunk (r - s - 2) that rank r - 1
// sends; after size - 1 steps it holds chunk r summed over every rank.
void reduce_scatter(const Context& context, const omnirt_cpu_gloo_op& op, uint32_t tag,
                    std::chrono::milliseconds timeout) {
  const int size = context->size;
  const int rank = context->rank;
  const size_t chunk = op.count * dtype_size(op.dtype);
  std::vector<uint8_t> partial(static_cast<const uint8_t*>(op.send),
                               static_cast<const uint8_t*>(op.send) + chunk * size_t(size));
  std::vector<uint8_t> incoming(size > 1 ? chunk : 0);
  const ReduceFunction reduce = reduce_function(op.dtype, op.reduce_op);
  auto outgoing = context->createUnboundBuffer(partial.data(), partial.size());
  auto landing = context->createUnboundBuffer(incoming.data(), incoming.size());
  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;
  for (int step = 0; step < size - 1; ++step) {
    const size_t sent = size_t((rank - step - 1 + 2 * size) % size);
    const size_t added = size_t((rank - step - 2 + 2 * size) % size);
    const uint64_t slot = step_slot(kReduceScatterSlotPrefix, tag, uint32_t(step));
    landing->recv(left, slot);
    outgoing->send(right, slot, sent * chunk, chunk);
    outgoing->waitSend(timeout);
    landing->waitRecv(timeout);
    uint8_t* target = partial.data() + added * chunk;
    reduce(target, target, incoming.data(), op.count);
  }
  std::memcpy(op.recv, partial.data() + size_t(rank) * chunk, chunk);
  if (op.reduce_op == OMNIRT_REDUCE_AVG ) divide_by(op.recv, op.count, op.dtype, size);
}

Transfer start_transfer(const Context& context, const omnirt_cpu_gloo_op& op, uint32_t tag) {
  const bool sending = op.kind == int32_t(plugin_common::CollectiveKind::kSend);
  void* data = sending ? const_cast<void*>(op.send) : op.recv;
  auto buffer = context->createUnboundBuffer(data, op.count * dtype_size(op.dtype));
  const uint64_t slot = gloo::Slot::build(kTransferSlotPrefix, tag);
  if (sending) {
    buffer->send(op.peer, slot);
  } else {
    buffer->recv(op.peer, slot);
  }
  return Transfer(std::move(buffer), sending);
}

void Transfer::wait(std::chrono::milliseconds timeout) {
  if (sending_) {
    buffer_->waitSend(timeout);
  } else {
    buffer_->waitRecv(timeout);
  }
}

}  // namespace omnirt::cpu::gloo_lib
