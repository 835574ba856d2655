// Collectives run through the host API and checked exactly against the
// reference of collective_values.h, on any backend: buffers are device memory
// of the communicator's device, filled and read back with omnirt_memcpy. Each
// rank of a group runs the same cases in the same order.
#ifndef OMNIRT_TESTS_COLLECTIVES_SUPPORT_COLLECTIVE_CASES_H_
#define OMNIRT_TESTS_COLLECTIVES_SUPPORT_COLLECTIVE_CASES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "omnirt/host.h"

namespace omnirt_test {

/// Where one rank runs its cases. With a stream, each case is enqueued on it
/// and the stream synchronized before the results are read.
struct RankContext {
  omnirt_backend* backend = nullptr;
  omnirt_comm* comm = nullptr;
  int rank = 0;
  int nranks = 1;
  int32_t device = 0;
  omnirt_stream* stream = nullptr;
};

// Each returns "" or what went wrong (a failed call with its message, or the
// first wrong element).
std::string check_all_reduce(const RankContext& c, int32_t dtype, int32_t op, size_t count,
                             bool in_place = false);
std::string check_reduce_scatter(const RankContext& c, int32_t dtype, int32_t op, size_t count);
std::string check_all_gather(const RankContext& c, int32_t dtype, size_t count);
std::string check_broadcast(const RankContext& c, int32_t dtype, size_t count, int root);
/// Every rank sends to the next and receives from the previous, in a group.
std::string check_send_recv_ring(const RankContext& c, int32_t dtype, size_t count);

/// Whether a backend's library reduces `dtype` with `op` (NCCL has no i16).
using Reducible = std::function<bool(int32_t dtype, int32_t op)>;

/// Every collective with every dtype (and every reduction of it) at each of
/// `counts` (send/recv from 2 ranks up); "" or the first failure. A pair
/// `reducible` rejects must answer NOT_SUPPORTED instead (null: all reduce).
std::string check_every_collective(const RankContext& c, const std::vector<size_t>& counts,
                                   const Reducible& reducible = nullptr);

}  // namespace omnirt_test

#endif  // OMNIRT_TESTS_COLLECTIVES_SUPPORT_COLLECTIVE_CASES_H_
