// What every backend checks before it hands a collective to its library
// (gloo, NCCL, HCCL, CNCL): the dtype and reduction exist, the root or peer
// is a rank, the byte counts do not overflow. Also the names messages use.
#ifndef OMNIRT_PLUGIN_COMMON_COLLECTIVES_H_
#define OMNIRT_PLUGIN_COMMON_COLLECTIVES_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::plugin_common {

enum class CollectiveKind : int32_t {
  kAllReduce = 0,
  kAllGather = 1,
  kReduceScatter = 2,
  kBroadcast = 3,
  kSend = 4,
  kRecv = 5,
};

inline const char* collective_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return "all_reduce";
    case CollectiveKind::kAllGather: return "all_gather";
    case CollectiveKind::kReduceScatter: return "reduce_scatter";
    case CollectiveKind::kBroadcast: return "broadcast";
    case CollectiveKind::kSend: return "send";
    case CollectiveKind::kRecv: return "recv";
  }
  return "collective";
}

/// Bytes per element of an omnirt_dtype; 0 for a value that is none.
inline size_t dtype_size(int32_t dtype) {
  switch (dtype) {
    case OMNIRT_DTYPE_F64:
    case OMNIRT_DTYPE_I64: return 8;
    case OMNIRT_DTYPE_F32:
    case OMNIRT_DTYPE_I32: return 4;
    case OMNIRT_DTYPE_F16:
    case OMNIRT_DTYPE_BF16:
    case OMNIRT_DTYPE_I16: return 2;
    case OMNIRT_DTYPE_I8:
    case OMNIRT_DTYPE_U8:
    case OMNIRT_DTYPE_BOOL: return 1;
    default: return 0;
  }
}

/// "f32", "bf16", ... as omnirt-probe spells them; "dtype <n>" for others.
inline std::string dtype_name(int32_t dtype) {
  static const char* const kNames[] = {"f32", "f16", "bf16", "f64", "i8",
                                       "i16", "i32", "i64",  "u8",  "bool"};
  if (dtype >= 0 && dtype < OMNIRT_DTYPE_COUNT_1_0) return kNames[dtype];
  return "dtype " + std::to_string(dtype);
}

/// "sum", "prod", "min", "max", "avg"; "reduce op <n>" for others.
inline std::string reduce_op_name(int32_t op) {
  static const char* const kNames[] = {"sum", "prod", "min", "max", "avg"};
  if (op >= OMNIRT_REDUCE_SUM && op <= OMNIRT_REDUCE_AVG) return kNames[op];
  return "reduce op " + std::to_string(op);
}

/// The reduction a library without a bool type runs on bool's 0/1 bytes as
/// u8: max for sum and max ("or"), min for prod and min ("and").
inline int32_t bool_as_u8_reduction(int32_t op) {
  return op == OMNIRT_REDUCE_SUM || op == OMNIRT_REDUCE_MAX ? OMNIRT_REDUCE_MAX : OMNIRT_REDUCE_MIN;
}

/// One collective call as the ABI passes it (send/recv use `send`/`recv` as
/// their one buffer; `peer` is the root of a broadcast, the peer of a send or
/// recv).
struct Collective {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  const void* send = nullptr;
  void* recv = nullptr;
  size_t count = 0;
  int32_t dtype = OMNIRT_DTYPE_F32;
  int32_t op = OMNIRT_REDUCE_SUM;
  int32_t peer = -1;

  bool reduces() const {
    return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter;
  }
  /// Elements of the larger buffer: the gathered or scattered whole for
  /// all_gather and reduce_scatter, `count` otherwise.
  size_t total_count(int32_t nranks) const {
    return kind == CollectiveKind::kAllGather || kind == CollectiveKind::kReduceScatter
               ? count * static_cast<size_t>(nranks)
               : count;
  }
  /// "all_reduce of 16 x f32 (sum)", for messages.
  std::string describe() const {
    std::string text = std::string(collective_name(kind)) + " of " + std::to_string(count) +
                       " x " + dtype_name(dtype);
    if (reduces()) text += " (" + reduce_op_name(op) + ")";
    if (kind == CollectiveKind::kBroadcast) text += " from root " + std::to_string(peer);
    if (kind == CollectiveKind::kSend) text += " to rank " + std::to_string(peer);
    if (kind == CollectiveKind::kRecv) text += " from rank " + std::to_string(peer);
    return text;
  }
};

/// Throws INVALID_ARGUMENT, prefixed with `backend`, unless `c` can run on a
/// communicator of `nranks` ranks whose own rank is `rank`: a known dtype and
/// reduction (bool reduces with sum/max as "or", prod/min as "and", never
/// avg), a root or peer in [0, nranks) (a send or recv to oneself too), and
/// byte counts that fit a size_t.
inline void check_collective(const char* backend, const Collective& c, int32_t nranks,
                             int32_t rank) {
  auto reject = [&](const std::string& why) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 std::string(backend) + ": " + collective_name(c.kind) + ": " + why);
  };
  const size_t element = dtype_size(c.dtype);
  if (element == 0) reject(std::to_string(c.dtype) + " is not an omnirt_dtype");
  if (c.reduces()) {
    if (c.op < OMNIRT_REDUCE_SUM || c.op > OMNIRT_REDUCE_AVG) {
      reject(std::to_string(c.op) + " is not an omnirt_reduce_op");
    }
    if (c.dtype == OMNIRT_DTYPE_BOOL && c.op == OMNIRT_REDUCE_AVG) {
      reject("avg of bool has no meaning (sum and max are 'or', prod and min 'and')");
    }
  }
  if (c.kind == CollectiveKind::kBroadcast || c.kind == CollectiveKind::kSend ||
      c.kind == CollectiveKind::kRecv) {
    const char* role = c.kind == CollectiveKind::kBroadcast ? "root" : "peer";
    if (c.peer < 0 || c.peer >= nranks) {
      reject(std::string(role) + " " + std::to_string(c.peer) + " is not a rank in [0, " +
             std::to_string(nranks) + ")");
    }
    if (c.kind != CollectiveKind::kBroadcast && c.peer == rank) {
      reject("peer " + std::to_string(c.peer) + " is this rank itself");
    }
  }
  const size_t limit = std::numeric_limits<size_t>::max() / element / static_cast<size_t>(nranks);
  if (c.count > limit) reject(std::to_string(c.count) + " elements overflow a size_t of bytes");
}

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_COLLECTIVES_H_
