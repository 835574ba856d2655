// NCCL through the cuda backend and the host, checked exactly on the GPU:
// a 1-rank communicator (any GPU machine) runs every collective with every
// dtype and reduction, on NULL and on a stream; 2 ranks (skipped below two
// GPUs) run them across devices, from two threads, grouped from one and from
// two processes of a GPU each, and a rank that never joins makes the other
// fail with TIMEOUT. Skips with the reason where CUDA or NCCL is not here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "collective_cases.h"
#include "cuda_host.h"
#include "omnirt/host.h"
#include "rank_processes.h"
#include "scratch_dir.h"

namespace omnirt_test {
namespace {

using ::testing::StartsWith;

std::string last_message() { return omnirt_last_error()->message; }

// NCCL has no 16-bit integer type: the backend refuses its reductions.
bool nccl_reduces(int32_t dtype, int32_t) { return dtype != OMNIRT_DTYPE_I16; }

using omnirt::cuda_test::create_cuda_host;

class CudaCollectives : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(create_cuda_host(&host_), OMNIRT_STATUS_OK) << last_message();
    if (omnirt_host_get_backend(host_, "cuda", &cuda_) != OMNIRT_STATUS_OK) {
      GTEST_SKIP() << "cuda unavailable: " << last_message();
    }
    omnirt_capabilities caps{};
    caps.struct_size = sizeof caps;
    ASSERT_EQ(omnirt_get_capabilities(cuda_, &caps), OMNIRT_STATUS_OK);
    char library[512] = "";
    const omnirt_status found = omnirt_collectives_library(cuda_, library, sizeof library);
    if ((caps.features & OMNIRT_FEATURE_COLLECTIVES) == 0) {
      EXPECT_NE(found, OMNIRT_STATUS_OK);
      GTEST_SKIP() << "no NCCL here: " << last_message();
    }
    ASSERT_EQ(found, OMNIRT_STATUS_OK) << last_message();
    EXPECT_THAT(library, StartsWith("NCCL 2."));
    std::printf("collectives: %s\n", library);
    ASSERT_EQ(omnirt_get_device_count(cuda_, &devices_), OMNIRT_STATUS_OK);
    char pattern[] = "/tmp/omnirt-cuda-collectives-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    store_dir_ = pattern;
    ASSERT_EQ(omnirt_file_store_create(store_dir_.c_str(), &store_), OMNIRT_STATUS_OK) << last_message();
  }
  void TearDown() override {
    for (omnirt_comm* comm : comms_) EXPECT_EQ(omnirt_comm_destroy(cuda_, comm), OMNIRT_STATUS_OK) << last_message();
    omnirt_file_store_destroy(store_);
    omnirt_host_destroy(host_);
    if (!store_dir_.empty()) std::filesystem::remove_all(store_dir_);
  }

  // Joins rank `rank` of `nranks` on `device`; nullptr (with a test failure) on error.
  omnirt_comm* join(int rank, int nranks, int device, uint32_t timeout_ms = 60000) {
    omnirt_comm_create_args args{};
    args.struct_size = sizeof args;
    args.nranks = nranks;
    args.rank = rank;
    args.device = device;
    args.timeout_ms = timeout_ms;
    args.store = store_;
    args.key_prefix = "";
    omnirt_comm* comm = nullptr;
    EXPECT_EQ(omnirt_comm_create(cuda_, &args, &comm), OMNIRT_STATUS_OK) << "rank " << rank << ": " << last_message();
    return comm;
  }

  omnirt_host* host_ = nullptr;
  omnirt_backend* cuda_ = nullptr;
  int32_t devices_ = 0;
  std::string store_dir_;
  omnirt_kv_store* store_ = nullptr;
  std::vector<omnirt_comm*> comms_;
};

TEST_F(CudaCollectives, OneRankRunsEveryCollectiveExactlyOnNullAndOnAStream) {
  omnirt_comm* comm = join(0, 1, 0);
  ASSERT_NE(comm, nullptr);
  comms_.push_back(comm);
  EXPECT_EQ(check_every_collective({cuda_, comm, 0, 1, 0, nullptr}, {1, 37, 1031, 1 << 20}, nccl_reduces), "");
  omnirt_stream* stream = nullptr;
  ASSERT_EQ(omnirt_stream_create(cuda_, 0, &stream), OMNIRT_STATUS_OK);
  EXPECT_EQ(check_every_collective({cuda_, comm, 0, 1, 0, stream}, {4099}, nccl_reduces), "");
  EXPECT_EQ(omnirt_comm_get_async_error(cuda_, comm), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(omnirt_stream_destroy(cuda_, stream), OMNIRT_STATUS_OK);
}

TEST_F(CudaCollectives, LocalCommunicatorsOverEveryDevice) {
  std::vector<int32_t> devices;
  for (int32_t d = 0; d < devices_; ++d) devices.push_back(d);
  comms_.assign(devices.size(), nullptr);
  ASSERT_EQ(omnirt_comm_create_local(cuda_, devices.data(), devices.size(), comms_.data()), OMNIRT_STATUS_OK)
      << last_message();
  std::vector<std::string> reports(devices.size());
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < devices_; ++rank) {
    ranks.emplace_back([&, rank] {
      reports[size_t(rank)] =
          check_every_collective({cuda_, comms_[size_t(rank)], rank, devices_, rank, nullptr}, {1, 1031}, nccl_reduces);
    });
  }
  for (std::thread& t : ranks) t.join();
  for (const std::string& report : reports) EXPECT_EQ(report, "");
}

TEST_F(CudaCollectives, TwoRanksOnTwoDevicesMeetThroughTheStore) {
  if (devices_ < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << devices_;
  comms_.assign(2, nullptr);
  std::vector<std::string> reports(2);
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    ranks.emplace_back([&, rank] {
      comms_[size_t(rank)] = join(rank, 2, rank);
      if (comms_[size_t(rank)] == nullptr) return;
      reports[size_t(rank)] =
          check_every_collective({cuda_, comms_[size_t(rank)], rank, 2, rank, nullptr}, {1, 37, 1 << 20}, nccl_reduces);
    });
  }
  for (std::thread& t : ranks) t.join();
  EXPECT_EQ(reports, std::vector<std::string>(2));
}

// One thread issues both ranks' collectives between group_start and group_end.
TEST_F(CudaCollectives, OneThreadDrivesTwoDevicesInAGroup) {
  if (devices_ < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << devices_;
  const int32_t devices[] = {0, 1};
  comms_.assign(2, nullptr);
  ASSERT_EQ(omnirt_comm_create_local(cuda_, devices, 2, comms_.data()), OMNIRT_STATUS_OK) << last_message();
  constexpr size_t kCount = 1 << 16;
  std::vector<float> host(kCount);
  std::vector<void*> buffers(2, nullptr);
  for (int rank = 0; rank < 2; ++rank) {
    for (size_t i = 0; i < kCount; ++i) host[i] = float(rank + 1) * float(i % 7);
    ASSERT_EQ(omnirt_malloc(cuda_, rank, kCount * sizeof(float), &buffers[size_t(rank)]), OMNIRT_STATUS_OK);
    ASSERT_EQ(omnirt_memcpy(cuda_, buffers[size_t(rank)], host.data(), kCount * sizeof(float),
                            OMNIRT_MEMCPY_HOST_TO_DEVICE),
              OMNIRT_STATUS_OK);
  }
  ASSERT_EQ(omnirt_group_start(cuda_), OMNIRT_STATUS_OK) << last_message();
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_EQ(omnirt_all_reduce(cuda_, comms_[size_t(rank)], buffers[size_t(rank)], buffers[size_t(rank)], kCount,
                                OMNIRT_DTYPE_F32, OMNIRT_REDUCE_SUM, nullptr),
              OMNIRT_STATUS_OK)
        << last_message();
  }
  ASSERT_EQ(omnirt_group_end(cuda_), OMNIRT_STATUS_OK) << last_message();
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_EQ(omnirt_memcpy(cuda_, host.data(), buffers[size_t(rank)], kCount * sizeof(float),
                            OMNIRT_MEMCPY_DEVICE_TO_HOST),
              OMNIRT_STATUS_OK);
    for (size_t i = 0; i < kCount; ++i) ASSERT_EQ(host[i], 3.0f * float(i % 7)) << "rank " << rank << " element " << i;
    EXPECT_EQ(omnirt_free(cuda_, rank, buffers[size_t(rank)]), OMNIRT_STATUS_OK);
  }
}

// Rank 1 joins the communicator, then never calls the collective: rank 0's
// all_reduce on a stream fails within the limit. Where NCCL connects the
// ranks on their first collective (its default since 2.22) the call itself
// cannot finish launching and says so; where they were connected when made,
// the kernel waits on the GPU and the watchdog's marker names it.
TEST_F(CudaCollectives, ARankThatNeverJoinsMakesTheOtherTimeOut) {
  if (devices_ < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << devices_;
  constexpr uint32_t kTimeoutMs = 3000;
  comms_.assign(2, nullptr);
  std::thread other([&] { comms_[1] = join(1, 2, 1, kTimeoutMs); });
  comms_[0] = join(0, 2, 0, kTimeoutMs);
  other.join();
  ASSERT_NE(comms_[0], nullptr);
  ASSERT_NE(comms_[1], nullptr);
  void* buffer = nullptr;
  ASSERT_EQ(omnirt_malloc(cuda_, 0, 4096, &buffer), OMNIRT_STATUS_OK);
  omnirt_stream* stream = nullptr;
  ASSERT_EQ(omnirt_stream_create(cuda_, 0, &stream), OMNIRT_STATUS_OK);
  const auto start = std::chrono::steady_clock::now();
  omnirt_status health =
      omnirt_all_reduce(cuda_, comms_[0], buffer, buffer, 1024, OMNIRT_DTYPE_F32, OMNIRT_REDUCE_SUM, stream);
  const bool call_failed = health != OMNIRT_STATUS_OK;
  while (health == OMNIRT_STATUS_OK && std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    health = omnirt_comm_get_async_error(cuda_, comms_[0]);
  }
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(health, OMNIRT_STATUS_TIMEOUT) << last_message();
  EXPECT_THAT(last_message(), ::testing::HasSubstr(call_failed ? "did not finish within 3000 ms: a rank did not join it"
                                                               : "did not complete within 3000 ms"));
  EXPECT_LT(took, std::chrono::milliseconds(kTimeoutMs + 1000));
  // Either way the communicator is broken for good, saying why.
  EXPECT_EQ(omnirt_comm_get_async_error(cuda_, comms_[0]), OMNIRT_STATUS_TIMEOUT);
  EXPECT_THAT(last_message(), ::testing::HasSubstr("rank 0 of 2"));
  // The abort ended the kernel: the stream drains.
  EXPECT_EQ(omnirt_stream_synchronize(cuda_, stream), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(omnirt_stream_destroy(cuda_, stream), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_free(cuda_, 0, buffer), OMNIRT_STATUS_OK);
  // Rank 1's peer is gone: flushing it may end at its time limit instead.
  EXPECT_THAT(omnirt_comm_destroy(cuda_, comms_[1]),
              ::testing::AnyOf(OMNIRT_STATUS_OK, OMNIRT_STATUS_TIMEOUT));
  comms_[1] = nullptr;
}

// Rank processes make their own hosts: a child cannot use a CUDA context its
// parent made, so the test's own process never makes one.
constexpr auto kRankLimit = std::chrono::minutes(4);

// "" with the number of GPUs the cuda backend sees in `*gpus`, or why it
// sees none; asked in a child process.
std::string count_gpus(int* gpus) {
  const std::vector<RankOutcome> outcomes = run_ranks(
      1,
      [](int) -> std::string {
        omnirt_host* host = nullptr;
        omnirt_backend* cuda = nullptr;
        int32_t count = 0;
        if (create_cuda_host(&host) != OMNIRT_STATUS_OK ||
            omnirt_host_get_backend(host, "cuda", &cuda) != OMNIRT_STATUS_OK ||
            omnirt_get_device_count(cuda, &count) != OMNIRT_STATUS_OK) {
          return "cuda unavailable: " + last_message();
        }
        omnirt_host_destroy(host);
        return "gpus " + std::to_string(count);
      },
      kRankLimit);
  const std::string& report = outcomes[0].report;
  if (report.rfind("gpus ", 0) != 0) return report.empty() ? failures_of(outcomes) : report;
  *gpus = std::stoi(report.substr(5));
  return "";
}

// Two processes, a GPU each, meet through a file store and run every
// collective, dtype and reduction exactly, on NULL and on a stream.
TEST(CudaCollectivesAcrossProcesses, TwoProcessesOfAGpuEachRunEveryCollective) {
  int gpus = 0;
  const std::string why = count_gpus(&gpus);
  if (!why.empty()) GTEST_SKIP() << why;
  if (gpus < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << gpus;
  const ScratchDir dir;
  const std::vector<RankOutcome> outcomes = run_ranks(
      2,
      [&](int rank) -> std::string {
        omnirt_host* host = nullptr;
        omnirt_backend* cuda = nullptr;
        omnirt_kv_store* store = nullptr;
        if (create_cuda_host(&host) != OMNIRT_STATUS_OK ||
            omnirt_host_get_backend(host, "cuda", &cuda) != OMNIRT_STATUS_OK ||
            omnirt_file_store_create(dir.path().c_str(), &store) != OMNIRT_STATUS_OK) {
          return "setting up: " + last_message();
        }
        omnirt_comm_create_args args{};
        args.struct_size = sizeof args;
        args.nranks = 2;
        args.rank = rank;
        args.device = rank;
        args.timeout_ms = 60000;
        args.store = store;
        args.key_prefix = "";
        omnirt_comm* comm = nullptr;
        if (omnirt_comm_create(cuda, &args, &comm) != OMNIRT_STATUS_OK) return "omnirt_comm_create: " + last_message();
        std::string report =
            check_every_collective({cuda, comm, rank, 2, rank, nullptr}, {1, 37, 1 << 20}, nccl_reduces);
        omnirt_stream* stream = nullptr;
        if (omnirt_stream_create(cuda, rank, &stream) != OMNIRT_STATUS_OK) return report + "stream: " + last_message();
        report += check_every_collective({cuda, comm, rank, 2, rank, stream}, {4099}, nccl_reduces);
        if (omnirt_stream_destroy(cuda, stream) != OMNIRT_STATUS_OK) report += "stream destroy: " + last_message();
        if (omnirt_comm_destroy(cuda, comm) != OMNIRT_STATUS_OK) report += "comm destroy: " + last_message();
        omnirt_file_store_destroy(store);
        omnirt_host_destroy(host);
        return report;
      },
      kRankLimit);
  EXPECT_EQ(failures_of(outcomes), "");
}

}  // namespace
}  // namespace omnirt_test
