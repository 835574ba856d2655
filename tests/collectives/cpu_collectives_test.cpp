// The cpu backend's collectives across 2 and 4 processes on the loopback:
// every collective with every dtype and reduction, checked exactly.
#include <gtest/gtest.h>

#include "collective_cases.h"
#include "collective_values.h"
#include "collectives_test_paths.h"
#include "cpu_rank.h"
#include "rank_processes.h"
#include "scratch_dir.h"

namespace omnirt_test {
namespace {

using std::chrono::milliseconds;

constexpr uint32_t kTimeoutMs = 30000;

class CpuCollectivesAcrossProcesses : public ::testing::TestWithParam<int> {
 protected:
  // Runs `cases` on every rank of a fresh group of GetParam() processes.
  void run_on_every_rank(const std::function<std::string(const RankContext&)>& cases) {
    ScratchDir store;
    const int nranks = GetParam();
    const auto outcomes = run_ranks(
        nranks,
        [&](int rank) {
          CpuRank self;
          std::string why = self.open(store.path(), rank, nranks, kTimeoutMs);
          if (!why.empty()) return why;
          return cases({self.backend(), self.comm(), rank, nranks, 0, nullptr});
        },
        milliseconds(120000));
    EXPECT_EQ(failures_of(outcomes), "");
  }
};

// 1 element, a count no rank count divides, and one past a page of f64.
TEST_P(CpuCollectivesAcrossProcesses, EveryCollectiveDtypeAndReductionIsExact) {
  run_on_every_rank([](const RankContext& c) { return check_every_collective(c, {1, 37, 1031}); });
}

// Up to 64 MiB (and 64 MiB gathered; 16 MiB in sanitized builds), on a subset
// that crosses gloo's 1 MiB segments with each kind of collective and each
// element size.
TEST_P(CpuCollectivesAcrossProcesses, LargeMessagesAreExact) {
  constexpr size_t kLargest = size_t{OMNIRT_TEST_LARGEST_MESSAGE_MIB} << 20;
  run_on_every_rank([](const RankContext& c) {
    const size_t gathered = kLargest / size_t(c.nranks);
    for (const std::string& why : {
             check_all_reduce(c, OMNIRT_DTYPE_F32, OMNIRT_REDUCE_SUM, kLargest / 4),
             check_all_reduce(c, OMNIRT_DTYPE_I64, OMNIRT_REDUCE_MAX, kLargest / 4 / 8),
             check_all_reduce(c, OMNIRT_DTYPE_BF16, OMNIRT_REDUCE_AVG, kLargest / 16 / 2),
             check_reduce_scatter(c, OMNIRT_DTYPE_F16, OMNIRT_REDUCE_SUM, kLargest / 4 / 2 / size_t(c.nranks)),
             check_all_gather(c, OMNIRT_DTYPE_U8, gathered),
             check_broadcast(c, OMNIRT_DTYPE_F64, kLargest / 8, c.nranks - 1),
             check_send_recv_ring(c, OMNIRT_DTYPE_I32, kLargest / 4 / 4),
         }) {
      if (!why.empty()) return why;
    }
    return std::string();
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, CpuCollectivesAcrossProcesses, ::testing::Values(2, 4),
                         [](const auto& param_info) { return std::to_string(param_info.param) + "_processes"; });

}  // namespace
}  // namespace omnirt_test
