// Ranks as processes for the collective benchmarks: rank 0 in the calling
// process, the others in children forked from it.
#ifndef OMNIRT_BENCH_FORKED_RANKS_H_
#define OMNIRT_BENCH_FORKED_RANKS_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <vector>

namespace omnirt_bench {

/// `rank_main(rank)`'s result; a rank that fails throws, and is 2 with the
/// exception's message on stderr, so that whoever made the ranks' files
/// still removes them.
template <class RankMain>
int reported(RankMain& rank_main, int rank) {
  try {
    return rank_main(rank);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    return 2;
  }
}

/// Runs `rank_main(rank)` for ranks 1 .. nranks-1 in forked children (each
/// exits with its result) and for rank 0 here; returns rank 0's result, or 2
/// when a child did not exit with 0 or 1. Call it before anything a child
/// cannot inherit (a CUDA context, threads).
template <class RankMain>
int run_forked_ranks(int nranks, RankMain&& rank_main) {
  std::vector<pid_t> children;
  for (int rank = 1; rank < nranks; ++rank) {
    const pid_t pid = fork();
    if (pid == 0) _exit(reported(rank_main, rank));
    children.push_back(pid);
  }
  int result = reported(rank_main, 0);
  for (pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) result = 2;
  }
  return result;
}

}  // namespace omnirt_bench

#endif  // OMNIRT_BENCH_FORKED_RANKS_H_
