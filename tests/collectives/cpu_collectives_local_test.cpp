// The cpu backend's collectives within one process: local communicators
// (comm_create_local), groups from one thread, streams, argument checks, and
// that discovery never loads gloo.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "collective_cases.h"
#include "collective_values.h"
#include "cpu_rank.h"
#include "scratch_dir.h"

namespace omnirt_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Clock = std::chrono::steady_clock;

std::string last_message() { return omnirt_last_error()->message; }

bool loaded(const char* file) {
  void* handle = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
  if (handle != nullptr) dlclose(handle);
  return handle != nullptr;
}

class CpuLocalCollectives : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(self_.open_backend(), ""); }
  void TearDown() override {
    for (omnirt_comm* comm : comms_) EXPECT_EQ(omnirt_comm_destroy(backend(), comm), OMNIRT_STATUS_OK);
  }

  omnirt_backend* backend() const { return self_.backend(); }
  void make_local(size_t n) {
    const std::vector<int32_t> devices(n, 0);  // every rank on the one cpu device
    comms_.assign(n, nullptr);
    ASSERT_EQ(omnirt_comm_create_local(backend(), devices.data(), n, comms_.data()), OMNIRT_STATUS_OK)
        << last_message();
  }
  RankContext context(int rank, omnirt_stream* stream = nullptr) const {
    return {backend(), comms_[size_t(rank)], rank, int(comms_.size()), 0, stream};
  }

  CpuRank self_;
  std::vector<omnirt_comm*> comms_;
};

TEST_F(CpuLocalCollectives, CapabilitiesNameGlooWithoutLoadingIt) {
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(omnirt_get_capabilities(backend(), &caps), OMNIRT_STATUS_OK);
  EXPECT_NE(caps.features & OMNIRT_FEATURE_COLLECTIVES, 0u);
  EXPECT_FALSE(loaded("libomnirt_cpu_gloo.so")) << "discovery loaded the collectives library";
  EXPECT_FALSE(loaded("libgloo.so.0"));
  char library[64] = "";
  ASSERT_EQ(omnirt_collectives_library(backend(), library, sizeof library), OMNIRT_STATUS_OK);
  EXPECT_THAT(library, StartsWith("gloo 0."));
  EXPECT_THAT(library, HasSubstr("(TCP)"));
}

TEST_F(CpuLocalCollectives, LocalRanksOnTheirOwnThreadsRunEveryCollective) {
  make_local(3);
  std::vector<std::string> reports(3);
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 3; ++rank) {
    ranks.emplace_back([&, rank] { reports[size_t(rank)] = check_every_collective(context(rank), {1, 37}); });
  }
  for (std::thread& t : ranks) t.join();
  for (const std::string& report : reports) EXPECT_EQ(report, "");
}

// One thread issues every rank's all_reduce between group_start and group_end.
TEST_F(CpuLocalCollectives, OneThreadDrivesEveryLocalRankInAGroup) {
  make_local(4);
  constexpr size_t kCount = 1000;
  std::vector<std::vector<uint8_t>> data;
  for (int rank = 0; rank < 4; ++rank) data.push_back(make_input(OMNIRT_DTYPE_I32, OMNIRT_REDUCE_SUM, rank, kCount));
  ASSERT_EQ(omnirt_group_start(backend()), OMNIRT_STATUS_OK);
  for (int rank = 0; rank < 4; ++rank) {
    void* buffer = data[size_t(rank)].data();
    ASSERT_EQ(omnirt_all_reduce(backend(), comms_[size_t(rank)], buffer, buffer, kCount, OMNIRT_DTYPE_I32,
                                OMNIRT_REDUCE_SUM, nullptr),
              OMNIRT_STATUS_OK)
        << last_message();
  }
  ASSERT_EQ(omnirt_group_end(backend()), OMNIRT_STATUS_OK) << last_message();
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(check_elements(OMNIRT_DTYPE_I32, data[size_t(rank)].data(), kCount,
                             [](size_t i) { return reduced_value(OMNIRT_DTYPE_I32, OMNIRT_REDUCE_SUM, 4, i); },
                             "rank " + std::to_string(rank)),
              "");
  }
}

// Each rank's all_reduce is enqueued on its own stream between a memset that
// fills its input and a copy of its output: only stream order makes it right.
TEST_F(CpuLocalCollectives, GroupedCollectivesOnStreamsCompleteInStreamOrder) {
  make_local(2);
  constexpr size_t kCount = 4096;
  std::vector<omnirt_stream*> streams(2, nullptr);
  std::vector<std::vector<uint8_t>> in(2, std::vector<uint8_t>(kCount)), out(2, std::vector<uint8_t>(kCount)),
      copied(2, std::vector<uint8_t>(kCount));
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_EQ(omnirt_stream_create(backend(), 0, &streams[size_t(rank)]), OMNIRT_STATUS_OK);
  }
  ASSERT_EQ(omnirt_group_start(backend()), OMNIRT_STATUS_OK);
  for (int rank = 0; rank < 2; ++rank) {
    omnirt_stream* stream = streams[size_t(rank)];
    ASSERT_EQ(omnirt_memset_async(backend(), in[size_t(rank)].data(), rank + 1, kCount, stream), OMNIRT_STATUS_OK);
    ASSERT_EQ(omnirt_all_reduce(backend(), comms_[size_t(rank)], in[size_t(rank)].data(), out[size_t(rank)].data(),
                                kCount, OMNIRT_DTYPE_U8, OMNIRT_REDUCE_SUM, stream),
              OMNIRT_STATUS_OK);
  }
  ASSERT_EQ(omnirt_group_end(backend()), OMNIRT_STATUS_OK) << last_message();
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_EQ(omnirt_memcpy_async(backend(), copied[size_t(rank)].data(), out[size_t(rank)].data(), kCount,
                                  OMNIRT_MEMCPY_DEVICE_TO_DEVICE, streams[size_t(rank)]),
              OMNIRT_STATUS_OK);
  }
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_EQ(omnirt_stream_synchronize(backend(), streams[size_t(rank)]), OMNIRT_STATUS_OK);
    EXPECT_EQ(copied[size_t(rank)], std::vector<uint8_t>(kCount, 3)) << "rank " << rank;
    EXPECT_EQ(omnirt_comm_get_async_error(backend(), comms_[size_t(rank)]), OMNIRT_STATUS_OK);
    EXPECT_EQ(omnirt_stream_destroy(backend(), streams[size_t(rank)]), OMNIRT_STATUS_OK);
  }
}

// A collective on a stream returns at once: here rank 0's waits for rank 1,
// which a second thread issues only later.
TEST_F(CpuLocalCollectives, ACollectiveOnAStreamReturnsBeforeItsPeersJoin) {
  make_local(2);
  omnirt_stream* stream = nullptr;
  ASSERT_EQ(omnirt_stream_create(backend(), 0, &stream), OMNIRT_STATUS_OK);
  int32_t a = 2, b = 5;
  const Clock::time_point start = Clock::now();
  ASSERT_EQ(omnirt_all_reduce(backend(), comms_[0], &a, &a, 1, OMNIRT_DTYPE_I32, OMNIRT_REDUCE_PROD, stream),
            OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_stream_query(backend(), stream), OMNIRT_STATUS_NOT_READY);
  const auto returned_after = Clock::now() - start;
  std::thread rank1([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(omnirt_all_reduce(backend(), comms_[1], &b, &b, 1, OMNIRT_DTYPE_I32, OMNIRT_REDUCE_PROD, nullptr),
              OMNIRT_STATUS_OK);
  });
  ASSERT_EQ(omnirt_stream_synchronize(backend(), stream), OMNIRT_STATUS_OK);
  rank1.join();
  EXPECT_LT(returned_after, std::chrono::milliseconds(150));
  EXPECT_EQ(a, 10);
  EXPECT_EQ(b, 10);
  EXPECT_EQ(omnirt_stream_destroy(backend(), stream), OMNIRT_STATUS_OK);
}

// The default stream's handle is taken as NULL: after the stream's earlier
// work (here a memset enqueued on it), complete on return. Rank 0 passes the
// handle, rank 1 NULL, each from its own thread.
TEST_F(CpuLocalCollectives, OnTheDefaultStreamsHandleACollectiveIsCompleteOnReturn) {
  make_local(2);
  omnirt_stream* default_stream = nullptr;
  ASSERT_EQ(omnirt_stream_get_default(backend(), 0, &default_stream), OMNIRT_STATUS_OK) << last_message();
  constexpr size_t kCount = 4096;
  std::vector<std::vector<uint8_t>> in(2, std::vector<uint8_t>(kCount)), out(2, std::vector<uint8_t>(kCount));
  std::vector<omnirt_status> filled(2), reduced(2);
  std::vector<std::vector<uint8_t>> seen_on_return(2);
  auto rank = [&](size_t r, omnirt_stream* stream) {
    filled[r] = omnirt_memset_async(backend(), in[r].data(), int(r) + 1, kCount, default_stream);
    reduced[r] = omnirt_all_reduce(backend(), comms_[r], in[r].data(), out[r].data(), kCount, OMNIRT_DTYPE_U8,
                                   OMNIRT_REDUCE_SUM, stream);
    seen_on_return[r] = out[r];
  };
  std::thread rank1(rank, 1, nullptr);
  rank(0, default_stream);
  rank1.join();
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(filled[r], OMNIRT_STATUS_OK) << "rank " << r;
    EXPECT_EQ(reduced[r], OMNIRT_STATUS_OK) << "rank " << r;
    EXPECT_EQ(seen_on_return[r], std::vector<uint8_t>(kCount, 3)) << "rank " << r;
  }
}

TEST_F(CpuLocalCollectives, BadArgumentsAreRefusedAndLeaveTheCommunicatorUsable) {
  make_local(2);
  float x[4] = {1, 2, 3, 4};
  omnirt_comm* comm = comms_[0];
  EXPECT_EQ(omnirt_all_reduce(backend(), comm, x, x, 4, 99, OMNIRT_REDUCE_SUM, nullptr), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("99 is not an omnirt_dtype"));
  EXPECT_EQ(omnirt_all_reduce(backend(), comm, x, x, 4, OMNIRT_DTYPE_F32, 7, nullptr), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(omnirt_all_reduce(backend(), comm, x, x, 4, OMNIRT_DTYPE_BOOL, OMNIRT_REDUCE_AVG, nullptr),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("avg of bool"));
  EXPECT_EQ(omnirt_broadcast(backend(), comm, x, x, 4, OMNIRT_DTYPE_F32, 2, nullptr), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("root 2 is not a rank in [0, 2)"));
  EXPECT_EQ(omnirt_send(backend(), comm, x, 4, OMNIRT_DTYPE_F32, 0, nullptr), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("this rank itself"));
  EXPECT_EQ(omnirt_all_reduce(backend(), reinterpret_cast<omnirt_comm*>(x), x, x, 4, OMNIRT_DTYPE_F32,
                              OMNIRT_REDUCE_SUM, nullptr),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("unknown communicator handle"));
  EXPECT_EQ(omnirt_group_end(backend()), OMNIRT_STATUS_INVALID_ARGUMENT);

  omnirt_stream* stream = nullptr;
  ASSERT_EQ(omnirt_stream_create(backend(), 0, &stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_stream_begin_capture(backend(), stream), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_all_reduce(backend(), comm, x, x, 4, OMNIRT_DTYPE_F32, OMNIRT_REDUCE_SUM, stream),
            OMNIRT_STATUS_NOT_SUPPORTED);
  omnirt_graph* graph = nullptr;
  EXPECT_EQ(omnirt_stream_end_capture(backend(), stream, &graph), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_graph_destroy(backend(), graph), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_stream_destroy(backend(), stream), OMNIRT_STATUS_OK);

  // None of these was issued: the ranks still agree on every number.
  EXPECT_EQ(omnirt_comm_get_async_error(backend(), comm), OMNIRT_STATUS_OK);
  std::vector<std::string> reports(2);
  std::thread rank1([&] { reports[1] = check_all_reduce(context(1), OMNIRT_DTYPE_F32, OMNIRT_REDUCE_MAX, 9); });
  reports[0] = check_all_reduce(context(0), OMNIRT_DTYPE_F32, OMNIRT_REDUCE_MAX, 9);
  rank1.join();
  EXPECT_EQ(reports, std::vector<std::string>(2));
}

TEST_F(CpuLocalCollectives, CommCreateChecksItsArguments) {
  ScratchDir dir;
  omnirt_kv_store* store = nullptr;
  ASSERT_EQ(omnirt_file_store_create(dir.path().c_str(), &store), OMNIRT_STATUS_OK);
  omnirt_comm_create_args args{};
  args.struct_size = sizeof args;
  args.nranks = 1;
  args.rank = 0;
  args.store = store;
  args.key_prefix = "";
  omnirt_comm* comm = nullptr;
  args.device = 1;
  EXPECT_EQ(omnirt_comm_create(backend(), &args, &comm), OMNIRT_STATUS_OUT_OF_RANGE);
  args.device = 0;
  args.rank = 1;
  EXPECT_EQ(omnirt_comm_create(backend(), &args, &comm), OMNIRT_STATUS_INVALID_ARGUMENT);
  args.rank = 0;
  omnirt_kv_store partial = *store;
  partial.struct_size = sizeof(size_t);
  args.store = &partial;
  EXPECT_EQ(omnirt_comm_create(backend(), &args, &comm), OMNIRT_STATUS_INCOMPATIBLE);
  partial.struct_size = sizeof partial;
  partial.wait = nullptr;
  EXPECT_EQ(omnirt_comm_create(backend(), &args, &comm), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("args->store->wait"));
  EXPECT_EQ(comm, nullptr);

  // A group of one works, and its collectives are identities.
  args.store = store;
  ASSERT_EQ(omnirt_comm_create(backend(), &args, &comm), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(check_every_collective({backend(), comm, 0, 1, 0, nullptr}, {5}), "");
  EXPECT_EQ(omnirt_comm_destroy(backend(), comm), OMNIRT_STATUS_OK);
  omnirt_file_store_destroy(store);
}

}  // namespace
}  // namespace omnirt_test
