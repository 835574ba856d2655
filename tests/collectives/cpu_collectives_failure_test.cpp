// A rank that dies, never joins a collective or never arrives makes the
// others fail with TIMEOUT naming it, within the communicator's time limit;
// ranks that disagree on a collective get INVALID_ARGUMENT naming the
// difference; a failure on a stream is the communicator's async error.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "collective_cases.h"
#include "cpu_rank.h"
#include "rank_processes.h"
#include "scratch_dir.h"

namespace omnirt_test {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr uint32_t kTimeoutMs = 3000;
// What a loaded test machine may add to a failure beyond its time limit.
constexpr auto kSlack = milliseconds(1500);
constexpr auto kProcessLimit = milliseconds(60000);

float kOnes[64] = {};

// An all_reduce of 64 floats on NULL; its status.
omnirt_status all_reduce(const CpuRank& self, size_t count = 64, int32_t dtype = OMNIRT_DTYPE_F32) {
  static float out[64];
  return omnirt_all_reduce(self.backend(), self.comm(), kOnes, out, count, dtype, OMNIRT_REDUCE_SUM,
                           nullptr);
}

// "" when `status` and the last error are what a survivor should see: the
// expected status, naming `missing`, within the limit.
std::string expect_failure(omnirt_status status, omnirt_status expected, const std::string& naming,
                           Clock::duration took) {
  const std::string message = omnirt_last_error()->message;
  if (status != expected) {
    return std::string("got ") + omnirt_status_name(status) + " (" + message + "), expected " +
           omnirt_status_name(expected);
  }
  if (message.find(naming) == std::string::npos) return "message does not name '" + naming + "': " + message;
  if (took > milliseconds(kTimeoutMs) + kSlack) {
    return "failed after " + std::to_string(std::chrono::duration_cast<milliseconds>(took).count()) +
           " ms, past the " + std::to_string(kTimeoutMs) + " ms limit: " + message;
  }
  return "";
}

TEST(CpuCollectivesFailure, AKilledRankMakesTheOthersTimeOutNamingIt) {
  ScratchDir store;
  const auto outcomes = run_ranks(3, [&](int rank) -> std::string {
    CpuRank self;
    std::string why = self.open(store.path(), rank, 3, kTimeoutMs);
    if (!why.empty()) return why;
    if (all_reduce(self) != OMNIRT_STATUS_OK) return failure("the first all_reduce", omnirt_last_error()->status);
    if (rank == 2) raise(SIGKILL);  // mid-run, between two collectives
    const Clock::time_point start = Clock::now();
    const omnirt_status status = all_reduce(self);
    return expect_failure(status, OMNIRT_STATUS_TIMEOUT, "rank 2 of 3 did not join", Clock::now() - start);
  }, kProcessLimit);
  // The survivors name rank 2 and live: its death must not end them too (the
  // SIGPIPE of writing to its closed connection, sigpipe_blocked.h).
  EXPECT_EQ(failures_of({outcomes[0], outcomes[1]}), "");
  EXPECT_EQ(outcomes[2].signal, SIGKILL);
}

TEST(CpuCollectivesFailure, ARankThatNeverJoinsACollectiveIsNamedAtTheLimit) {
  ScratchDir store;
  const auto outcomes = run_ranks(2, [&](int rank) -> std::string {
    CpuRank self;
    std::string why = self.open(store.path(), rank, 2, kTimeoutMs);
    if (!why.empty()) return why;
    if (rank == 1) {  // alive, but busy elsewhere for longer than the limit
      std::this_thread::sleep_for(milliseconds(kTimeoutMs) + kSlack);
      return "";
    }
    const Clock::time_point start = Clock::now();
    const omnirt_status status = all_reduce(self);
    const Clock::duration took = Clock::now() - start;
    if (took < milliseconds(kTimeoutMs / 2)) return "gave up early: " + std::string(omnirt_last_error()->message);
    return expect_failure(status, OMNIRT_STATUS_TIMEOUT, "rank 1 of 2 did not join", took);
  }, kProcessLimit);
  EXPECT_EQ(failures_of(outcomes), "");
}

TEST(CpuCollectivesFailure, ARankThatNeverArrivesAtTheRendezvousIsNamed) {
  ScratchDir store;
  const auto outcomes = run_ranks(3, [&](int rank) -> std::string {
    if (rank == 1) return "";  // never creates its communicator
    CpuRank self;
    const Clock::time_point start = Clock::now();
    const std::string why = self.open(store.path(), rank, 3, kTimeoutMs);
    return expect_failure(omnirt_last_error()->status, OMNIRT_STATUS_TIMEOUT,
                          "rank 1 of 3 did not arrive within 3000 ms", Clock::now() - start);
  }, kProcessLimit);
  EXPECT_EQ(failures_of(outcomes), "");
}

class CpuCollectivesMismatch : public ::testing::TestWithParam<bool> {};

// Ranks calling one collective with other counts (or dtypes) are told so.
TEST_P(CpuCollectivesMismatch, IsAnInvalidArgumentNamingBothCalls) {
  const bool dtypes_differ = GetParam();
  ScratchDir store;
  const auto outcomes = run_ranks(2, [&](int rank) -> std::string {
    CpuRank self;
    std::string why = self.open(store.path(), rank, 2, kTimeoutMs);
    if (!why.empty()) return why;
    const size_t count = !dtypes_differ && rank == 1 ? 32 : 64;
    const int32_t dtype = dtypes_differ && rank == 1 ? OMNIRT_DTYPE_I32 : OMNIRT_DTYPE_F32;
    const Clock::time_point start = Clock::now();
    const omnirt_status status = all_reduce(self, count, dtype);
    const std::string other = rank == 0 ? (dtypes_differ ? "64 x i32" : "32 x f32") : "64 x f32";
    return expect_failure(status, OMNIRT_STATUS_INVALID_ARGUMENT,
                          "rank " + std::to_string(1 - rank) + " called all_reduce of " + other,
                          Clock::now() - start);
  }, kProcessLimit);
  EXPECT_EQ(failures_of(outcomes), "");
}

INSTANTIATE_TEST_SUITE_P(Shapes, CpuCollectivesMismatch, ::testing::Values(false, true),
                         [](const auto& param_info) { return param_info.param ? "dtype" : "count"; });

TEST(CpuCollectivesFailure, AFailureOnAStreamIsTheCommunicatorsAsyncError) {
  ScratchDir store;
  const auto outcomes = run_ranks(2, [&](int rank) -> std::string {
    CpuRank self;
    std::string why = self.open(store.path(), rank, 2, kTimeoutMs);
    if (!why.empty()) return why;
    if (rank == 1) {
      std::this_thread::sleep_for(milliseconds(kTimeoutMs) + kSlack);
      return "";
    }
    omnirt_stream* stream = nullptr;
    if (omnirt_stream_create(self.backend(), 0, &stream) != OMNIRT_STATUS_OK) return "stream_create failed";
    static float out[64];
    const Clock::time_point start = Clock::now();
    omnirt_status status = omnirt_all_reduce(self.backend(), self.comm(), kOnes, out, 64, OMNIRT_DTYPE_F32,
                                             OMNIRT_REDUCE_SUM, stream);
    if (status != OMNIRT_STATUS_OK) return failure("enqueuing all_reduce", status);
    if (Clock::now() - start > milliseconds(kTimeoutMs / 2)) return "all_reduce on a stream waited for its peer";
    if (omnirt_comm_get_async_error(self.backend(), self.comm()) != OMNIRT_STATUS_OK) {
      return "async error before the collective failed";
    }
    if (omnirt_stream_synchronize(self.backend(), stream) != OMNIRT_STATUS_OK) return "stream_synchronize failed";
    why = expect_failure(omnirt_comm_get_async_error(self.backend(), self.comm()), OMNIRT_STATUS_TIMEOUT,
                         "rank 1 of 2 did not join", Clock::now() - start);
    if (!why.empty()) return why;
    // Broken for good: the next collective returns the same failure at once.
    const Clock::time_point again = Clock::now();
    why = expect_failure(all_reduce(self), OMNIRT_STATUS_TIMEOUT, "rank 1 of 2 did not join",
                         Clock::now() - again);
    omnirt_stream_destroy(self.backend(), stream);
    return why;
  }, kProcessLimit);
  EXPECT_EQ(failures_of(outcomes), "");
}

}  // namespace
}  // namespace omnirt_test
