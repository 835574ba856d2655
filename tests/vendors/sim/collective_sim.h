// The collective libraries of the simulated machine (libhccl.so, libcncl.so):
// ranks are communicators of one process, each on its own simulated device;
// a collective is enqueued on the rank's stream of the simulated runtime and,
// when the stream reaches it, waits there for the other ranks' parts of the
// same collective (by issue number). The last to arrive moves the data of
// all: the buffers are host memory of this process. A send and its receive
// meet the same way. Between the vendor's group start and end, the calls are
// held and launched at the end as one task per stream, which starts every
// send and receive before it waits for any (so that two ranks exchanging
// both ways meet). Each vendor facade (hccl_sim.cpp, cncl_sim.cpp) maps its
// API, types and codes onto this.
//
// Failures the libraries report, as the real ones do in their way: a rank
// that never comes within the collective time limit (OMNIRT_SIM_COLLECTIVE_TIMEOUT_MS,
// default 10000) leaves the others with a timeout; ranks whose parts differ
// (count, type, reduction, root) with a mismatch. Either is kept as the
// rank's asynchronous error.
#ifndef OMNIRT_TESTS_VENDORS_SIM_COLLECTIVE_SIM_H_
#define OMNIRT_TESTS_VENDORS_SIM_COLLECTIVE_SIM_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace omnirt::sim {

enum class Element : int { kI8, kI16, kI32, kI64, kU8, kU16, kU32, kU64, kF16, kBF16, kF32, kF64 };
enum class Reduction : int { kSum, kProd, kMax, kMin };
enum class Kind : int { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kSend, kRecv };

size_t element_size(Element element);

/// One rank's part of a collective, as a vendor facade hands it over.
struct Part {
  Kind kind;
  const void* send;  // a broadcast in place: send == recv
  void* recv;
  size_t count;      // elements of the smaller buffer, as the vendor API counts
  Element element;
  Reduction reduction;
  int peer;          // root of a broadcast, the other rank of a send or recv
};

enum class Failure : int { kNone, kTimeout, kMismatch };

/// Why a call's part is refused before it is issued, as the libraries sort
/// it: a buffer missing where elements move, a root or peer out of range.
enum class Refusal : int { kNone, kNullPointer, kBadArgument };
Refusal check(const Part& part, int nranks);

/// How long a collective (and a clique's gathering) waits for the other
/// ranks: OMNIRT_SIM_COLLECTIVE_TIMEOUT_MS, default 10000.
std::chrono::milliseconds collective_timeout();

class Group;

/// One simulated rank of a group.
class Rank : public std::enable_shared_from_this<Rank> {
 public:
  /// A fresh group id, for a root info or clique id.
  static uint64_t new_group_id();
  /// Joins group `id` as `rank` of `nranks`, waiting up to `timeout` for
  /// every rank to join; nullptr when they did not, or `nranks` disagrees.
  static std::shared_ptr<Rank> join(uint64_t id, int rank, int nranks, std::chrono::milliseconds timeout);
  /// The `n` ranks of a new group at once.
  static std::vector<std::shared_ptr<Rank>> make_all(int n);

  Rank(std::shared_ptr<Group> group, int rank);
  int rank() const { return rank_; }
  int nranks() const;

  /// What the rank's stream runs for `part`, numbered now (issue order):
  /// `start` runs a collective, or posts a send or receive; `finish` waits
  /// for a posted one. A failure becomes the rank's asynchronous error.
  struct Work {
    std::function<void()> start;
    std::function<void()> finish;
  };
  Work issue(const Part& part);
  Failure async_error() const { return error_.load(); }

 private:
  const std::shared_ptr<Group> group_;
  const int rank_;
  const std::chrono::milliseconds timeout_;
  std::atomic<uint64_t> next_collective_{0};
  std::unique_ptr<std::atomic<uint64_t>[]> next_send_;  // per destination
  std::unique_ptr<std::atomic<uint64_t>[]> next_recv_;  // per source
  std::atomic<Failure> error_{Failure::kNone};
};

/// Launches `work` on the runtime simulation's `stream` (NULL: the default
/// stream of the calling thread's current device, as of this call), or holds
/// it while the calling thread has a group open. False when there is no such
/// stream.
bool launch(void* stream, Rank::Work work);
/// The vendor's group start and end. group_end launches what the group held;
/// false without a group open, or when a held call's stream is gone.
void group_start();
bool group_end();

}  // namespace omnirt::sim

#endif  // OMNIRT_TESTS_VENDORS_SIM_COLLECTIVE_SIM_H_
