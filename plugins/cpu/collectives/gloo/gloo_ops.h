// Each operation of omnirt_cpu_gloo_op on a connected gloo context. gloo's
// own algorithms where it has them (allreduce, allgather, broadcast), a ring
// for reduce-scatter (gloo has none on unbound buffers), unbound buffers for
// send and receive. `tag` tells operations apart; every wait ends after
// `timeout` with a gloo exception.
#ifndef OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_GLOO_OPS_H_
#define OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_GLOO_OPS_H_

#include <gloo/context.h>
#include <gloo/transport/unbound_buffer.h>

#include <chrono>
#include <cstdint>
#include <memory>

#include "../gloo_api.h"

namespace omnirt::cpu::gloo_lib {

using Context = std::shared_ptr<gloo::Context>;

void all_reduce(const Context& context, const omnirt_cpu_gloo_op& op, uint32_t tag,
                std::chrono::milliseconds timeout);
void all_gather(const Context& context, const omnirt_cpu_gloo_op& op, uint32_t tag,
                std::chrono::milliseconds timeout);
void reduce_scatter(const Context& context, const omnirt_cpu_gloo_op& op, uint32_t tag,
                    std::chrono::milliseconds timeout);
void broadcast(const Context& context, const omnirt_cpu_gloo_op& op, uint32_t tag,
               std::chrono::milliseconds timeout);

/// A send or receive under way: started by start_transfer, completed by wait().
class Transfer {
 public:
  Transfer(std::unique_ptr<gloo::transport::UnboundBuffer> buffer, bool sending)
      : buffer_(std::move(buffer)), sending_(sending) {}
  void wait(std::chrono::milliseconds timeout);

 private:
  std::unique_ptr<gloo::transport::UnboundBuffer> buffer_;
  bool sending_;
};

/// Starts the send or receive `op` (count > 0) under `tag`.
Transfer start_transfer(const Context& context, const omnirt_cpu_gloo_op& op, uint32_t tag);

}  // namespace omnirt::cpu::gloo_lib

#endif  // OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_GLOO_OPS_H_
