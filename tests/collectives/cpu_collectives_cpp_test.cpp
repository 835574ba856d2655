// The C++ wrapper's collectives (omnirt/cpp/host.hpp) on the cpu backend:
// FileStore and Communicator own what they make, typed calls take their
// dtype from the element type, group() launches its collectives together.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "collectives_test_paths.h"
#include "omnirt/cpp/host.hpp"
#include "scratch_dir.h"

namespace omnirt_test {
namespace {

class CpuCollectivesCpp : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(host_.create({OMNIRT_TEST_CPU_PLUGIN}, OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR,
                           OMNIRT_TEST_CPU_CONFIG),
              OMNIRT_STATUS_OK)
        << omnirt::last_error().message;
    ASSERT_EQ(host_.backend("cpu", &backend_), OMNIRT_STATUS_OK) << omnirt::last_error().message;
  }

  omnirt::Host host_;
  omnirt::Backend backend_;
};

TEST_F(CpuCollectivesCpp, TwoRanksMeetThroughAFileStoreAndReduceTypedData) {
  ScratchDir dir;
  omnirt::FileStore store;
  ASSERT_EQ(store.create(dir.path().c_str()), OMNIRT_STATUS_OK) << omnirt::last_error().message;
  std::vector<omnirt::Communicator> comms(2);
  std::vector<omnirt_status> made(2, OMNIRT_STATUS_INTERNAL);
  std::vector<std::vector<int64_t>> data = {{1, -2, 3}, {10, 20, -30}};
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    ranks.emplace_back([&, rank] {
      made[size_t(rank)] = backend_.create_communicator(store, 2, rank, 0, &comms[size_t(rank)], 10000, "cpp/");
      if (made[size_t(rank)] != OMNIRT_STATUS_OK) return;
      std::vector<int64_t>& mine = data[size_t(rank)];
      made[size_t(rank)] = comms[size_t(rank)].all_reduce(mine.data(), mine.data(), mine.size(), OMNIRT_REDUCE_SUM);
    });
  }
  for (std::thread& t : ranks) t.join();
  EXPECT_EQ(made, std::vector<omnirt_status>(2, OMNIRT_STATUS_OK));
  EXPECT_EQ(data[0], (std::vector<int64_t>{11, 18, -27}));
  EXPECT_EQ(data[1], data[0]);
  EXPECT_EQ(comms[0].async_error(), OMNIRT_STATUS_OK);
  EXPECT_EQ(comms[0].reset(), OMNIRT_STATUS_OK);
  EXPECT_FALSE(comms[0]);
}

TEST_F(CpuCollectivesCpp, AGroupDrivesLocalCommunicatorsFromOneThread) {
  const int32_t devices[] = {0, 0, 0};
  omnirt::Communicator comms[3];
  ASSERT_EQ(backend_.create_local_communicators(devices, 3, comms), OMNIRT_STATUS_OK) << omnirt::last_error().message;
  float values[3][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
  const omnirt_status status = backend_.group([&] {
    for (int rank = 0; rank < 3; ++rank) {
      const omnirt_status s = comms[rank].all_reduce(values[rank], values[rank], 4, OMNIRT_REDUCE_MAX);
      if (s != OMNIRT_STATUS_OK) return s;
    }
    return omnirt_status{OMNIRT_STATUS_OK};
  });
  ASSERT_EQ(status, OMNIRT_STATUS_OK) << omnirt::last_error().message;
  for (const auto& row : values) EXPECT_EQ(std::vector<float>(row, row + 4), (std::vector<float>{9, 10, 11, 12}));
  char library[64] = "";
  EXPECT_EQ(backend_.collectives_library(library, sizeof library), OMNIRT_STATUS_OK);
  EXPECT_EQ(std::string(library).rfind("gloo ", 0), 0u) << library;
}

TEST_F(CpuCollectivesCpp, OwnersReleaseOnMoveAndRefuseAStoreThatCannotBe) {
  omnirt::FileStore store;
  EXPECT_NE(store.create("/proc/omnirt-cannot-be-here"), OMNIRT_STATUS_OK);
  EXPECT_FALSE(store);
  const int32_t device = 0;
  omnirt::Communicator one[1];
  ASSERT_EQ(backend_.create_local_communicators(&device, 1, one), OMNIRT_STATUS_OK);
  omnirt::Communicator moved = std::move(one[0]);
  EXPECT_FALSE(one[0]);
  double x = 2.5;
  EXPECT_EQ(moved.all_reduce(&x, &x, 1, OMNIRT_REDUCE_AVG), OMNIRT_STATUS_OK);
  EXPECT_EQ(x, 2.5);
  static_assert(omnirt::dtype_of<double>() == OMNIRT_DTYPE_F64, "f64");
  static_assert(omnirt::dtype_of<bool>() == OMNIRT_DTYPE_BOOL, "bool");
}

}  // namespace
}  // namespace omnirt_test
