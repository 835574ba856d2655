// HCCL and CNCL through the ascend and cambricon backends, on their simulated
// libraries (tests/vendors/sim): the bindings really run, moving data between
// two simulated ranks of this process, checked exactly.
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "collective_cases.h"
#include "vendor_test_support.h"

namespace omnirt::vendor_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using omnirt_test::RankContext;

class VendorCollectives : public ::testing::TestWithParam<const Vendor*> {
 protected:
  const Vendor& vendor() const { return *GetParam(); }

  // A host on the simulated runtime and collective library, and its backend.
  omnirt_backend* open(const std::string& collectives_library) {
    host_ = std::make_unique<Host>(vendor(), std::map<std::string, std::string>{
                                                 {"library", vendor().sim},
                                                 {vendor().collectives_option, collectives_library}});
    EXPECT_EQ(host_->create_status(), OMNIRT_STATUS_OK) << last_message();
    omnirt_backend* backend = nullptr;
    EXPECT_EQ(omnirt_host_get_backend(host_->get(), vendor().backend, &backend), OMNIRT_STATUS_OK) << last_message();
    return backend;
  }

  // Two local ranks, on simulated devices 0 and 1.
  void make_local(omnirt_backend* backend) {
    const int32_t devices[] = {0, 1};
    comms_.assign(2, nullptr);
    ASSERT_EQ(omnirt_comm_create_local(backend, devices, 2, comms_.data()), OMNIRT_STATUS_OK) << last_message();
  }

  // Runs `cases` for both ranks, each on a thread of its own.
  void on_both_ranks(omnirt_backend* backend, const std::function<std::string(const RankContext&)>& cases) {
    std::vector<std::string> reports(2);
    std::vector<std::thread> ranks;
    for (int rank = 0; rank < 2; ++rank) {
      ranks.emplace_back([&, rank] { reports[size_t(rank)] = cases({backend, comms_[size_t(rank)], rank, 2, rank, nullptr}); });
    }
    for (std::thread& t : ranks) t.join();
    EXPECT_EQ(reports, std::vector<std::string>(2));
  }

  void TearDown() override {
    omnirt_backend* backend = host_ ? host_->any_backend() : nullptr;
    for (omnirt_comm* comm : comms_) EXPECT_EQ(omnirt_comm_destroy(backend, comm), OMNIRT_STATUS_OK) << last_message();
  }

  std::unique_ptr<Host> host_;
  std::vector<omnirt_comm*> comms_;
};

TEST_P(VendorCollectives, TheLibraryIsFoundWithoutLoadingItAndNamedOnUse) {
  omnirt_backend* backend = open(vendor().collectives_sim);
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(omnirt_get_capabilities(backend, &caps), OMNIRT_STATUS_OK);
  EXPECT_NE(caps.features & OMNIRT_FEATURE_COLLECTIVES, 0u);
  char library[512] = "";
  ASSERT_EQ(omnirt_collectives_library(backend, library, sizeof library), OMNIRT_STATUS_OK) << last_message();
  EXPECT_THAT(library, StartsWith(std::string(vendor().collectives_name) + vendor().collectives_sim));
}

TEST_P(VendorCollectives, WithoutTheLibraryTheBitIsClearAndCallsSayWhy) {
  omnirt_backend* backend = open("/nonexistent/libcollectives.so");
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(omnirt_get_capabilities(backend, &caps), OMNIRT_STATUS_OK);
  EXPECT_EQ(caps.features & OMNIRT_FEATURE_COLLECTIVES, 0u);
  const int32_t devices[] = {0, 1};
  omnirt_comm* comms[2] = {};
  EXPECT_EQ(omnirt_comm_create_local(backend, devices, 2, comms), OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_THAT(last_message(), HasSubstr(std::string(vendor().collectives_option) +
                                       "=/nonexistent/libcollectives.so is not a file"));
}

TEST_P(VendorCollectives, LocalRanksRunEveryCollectiveExactly) {
  omnirt_backend* backend = open(vendor().collectives_sim);
  make_local(backend);
  on_both_ranks(backend, [&](const RankContext& c) {
    return omnirt_test::check_every_collective(c, {1, 37, 1031}, vendor().reducible);
  });
}

TEST_P(VendorCollectives, RanksMeetThroughTheStore) {
  omnirt_backend* backend = open(vendor().collectives_sim);
  char pattern[] = "/tmp/omnirt-vendor-collectives-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  omnirt_kv_store* store = nullptr;
  ASSERT_EQ(omnirt_file_store_create(pattern, &store), OMNIRT_STATUS_OK);
  comms_.assign(2, nullptr);
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    ranks.emplace_back([&, rank] {
      omnirt_comm_create_args args{};
      args.struct_size = sizeof args;
      args.nranks = 2;
      args.rank = rank;
      args.device = rank;
      args.timeout_ms = 20000;
      args.store = store;
      args.key_prefix = "job/";
      EXPECT_EQ(omnirt_comm_create(backend, &args, &comms_[size_t(rank)]), OMNIRT_STATUS_OK) << last_message();
    });
  }
  for (std::thread& t : ranks) t.join();
  on_both_ranks(backend, [&](const RankContext& c) {
    return omnirt_test::check_every_collective(c, {5}, vendor().reducible);
  });
  for (omnirt_comm*& comm : comms_) {
    EXPECT_EQ(omnirt_comm_destroy(backend, comm), OMNIRT_STATUS_OK);
    comm = nullptr;
  }
  omnirt_file_store_destroy(store);  // after its communicators
  std::filesystem::remove_all(pattern);
}

TEST_P(VendorCollectives, OneThreadDrivesBothRanksInAGroup) {
  omnirt_backend* backend = open(vendor().collectives_sim);
  make_local(backend);
  std::vector<void*> buffers(2, nullptr);
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_EQ(omnirt_malloc(backend, rank, 16 * sizeof(int32_t), &buffers[size_t(rank)]), OMNIRT_STATUS_OK);
    const std::vector<int32_t> values(16, rank + 3);
    ASSERT_EQ(omnirt_memcpy(backend, buffers[size_t(rank)], values.data(), 16 * sizeof(int32_t),
                            OMNIRT_MEMCPY_HOST_TO_DEVICE),
              OMNIRT_STATUS_OK);
  }
  ASSERT_EQ(omnirt_group_start(backend), OMNIRT_STATUS_OK) << last_message();
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_EQ(omnirt_all_reduce(backend, comms_[size_t(rank)], buffers[size_t(rank)], buffers[size_t(rank)], 16,
                                OMNIRT_DTYPE_I32, OMNIRT_REDUCE_PROD, nullptr),
              OMNIRT_STATUS_OK)
        << last_message();
  }
  ASSERT_EQ(omnirt_group_end(backend), OMNIRT_STATUS_OK) << last_message();
  for (int rank = 0; rank < 2; ++rank) {
    std::vector<int32_t> values(16, 0);
    ASSERT_EQ(omnirt_memcpy(backend, values.data(), buffers[size_t(rank)], 16 * sizeof(int32_t),
                            OMNIRT_MEMCPY_DEVICE_TO_HOST),
              OMNIRT_STATUS_OK);
    EXPECT_EQ(values, std::vector<int32_t>(16, 12)) << "rank " << rank;
    EXPECT_EQ(omnirt_free(backend, rank, buffers[size_t(rank)]), OMNIRT_STATUS_OK);
  }
}

// Rank 1 never calls: rank 0's collective ends at the library's time limit
// and its failure is the communicator's asynchronous error.
TEST_P(VendorCollectives, ARankThatNeverJoinsIsAnAsynchronousTimeout) {
  ScopedEnvironment environment;
  environment.set("OMNIRT_SIM_COLLECTIVE_TIMEOUT_MS", "300");
  omnirt_backend* backend = open(vendor().collectives_sim);
  make_local(backend);
  void* buffer = nullptr;
  ASSERT_EQ(omnirt_malloc(backend, 0, 64, &buffer), OMNIRT_STATUS_OK);
  omnirt_stream* stream = nullptr;
  ASSERT_EQ(omnirt_stream_create(backend, 0, &stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_all_reduce(backend, comms_[0], buffer, buffer, 16, OMNIRT_DTYPE_F32, OMNIRT_REDUCE_SUM, stream),
            OMNIRT_STATUS_OK)
      << last_message();
  EXPECT_EQ(omnirt_comm_get_async_error(backend, comms_[0]), OMNIRT_STATUS_OK) << "failed before its time limit";
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(omnirt_stream_synchronize(backend, stream), OMNIRT_STATUS_OK);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(omnirt_comm_get_async_error(backend, comms_[0]), OMNIRT_STATUS_TIMEOUT);
  EXPECT_THAT(last_message(), HasSubstr("asynchronous error"));
  EXPECT_EQ(omnirt_stream_destroy(backend, stream), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_free(backend, 0, buffer), OMNIRT_STATUS_OK);
}

TEST_P(VendorCollectives, AnAverageIsNotSupportedAndSaysWhy) {
  omnirt_backend* backend = open(vendor().collectives_sim);
  make_local(backend);
  float x[4] = {};
  EXPECT_EQ(omnirt_all_reduce(backend, comms_[0], x, x, 4, OMNIRT_DTYPE_F32, OMNIRT_REDUCE_AVG, nullptr),
            OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(last_message(), HasSubstr("has no average"));
}

INSTANTIATE_TEST_SUITE_P(Backends, VendorCollectives, ::testing::Values(&ascend(), &cambricon()), backend_name);

}  // namespace
}  // namespace omnirt::vendor_test
