// Runs the ranks of a collective test as processes, the way a deployment
// does: each rank is a forked child that builds its own host and reports back
// through a pipe; the parent waits a bounded time and kills what is left.
#ifndef OMNIRT_TESTS_COLLECTIVES_SUPPORT_RANK_PROCESSES_H_
#define OMNIRT_TESTS_COLLECTIVES_SUPPORT_RANK_PROCESSES_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace omnirt_test {

/// How one rank's process ended.
struct RankOutcome {
  int rank = 0;
  bool finished = false;    ///< exited by itself before the limit
  int signal = 0;           ///< the signal that ended it, if one did
  int exit_code = -1;       ///< when it exited
  std::string report;       ///< what its body returned ("" on success)
};

/// Runs body(rank) in `nranks` child processes; a body returns "" on success
/// or what went wrong. Children still running after `limit` are killed.
std::vector<RankOutcome> run_ranks(int nranks, const std::function<std::string(int rank)>& body,
                                   std::chrono::milliseconds limit);

/// "" when every rank finished with an empty report, else one line per rank
/// that did not (its report, or how it ended: an exit code or a signal).
std::string failures_of(const std::vector<RankOutcome>& outcomes);

}  // namespace omnirt_test

#endif  // OMNIRT_TESTS_COLLECTIVES_SUPPORT_RANK_PROCESSES_H_
