// Collectives (COLLECTIVES, rule 7; the contract of backend.h): a group of one
// rank, made through the host's file store as an embedder makes it, runs each
// collective as the identity it is for one rank, on NULL and on a stream, and
// names its library. Skipped with the reason where the bit is clear.
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <vector>

#include "kit.hpp"
#include "resources.hpp"

namespace omnirt::conformance {
namespace {

constexpr size_t kCount = 4096;  // floats

class Collectives : public KitTest {
 protected:
  Collectives() : KitTest(Needs::kDevice, OMNIRT_FEATURE_COLLECTIVES) {}

  void SetUp() override {
    KitTest::SetUp();
    if (IsSkipped()) return;
    char pattern[] = "/tmp/omnirt-conformance-store-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    KIT_ASSERT_OK(omnirt_file_store_create(dir_.c_str(), &store_));
    omnirt_comm_create_args args{};
    args.struct_size = sizeof args;
    args.nranks = 1;
    args.rank = 0;
    args.device = 0;
    args.timeout_ms = 30000;
    args.store = store_;
    args.key_prefix = "conformance/";
    KIT_ASSERT_OK(omnirt_comm_create(backend(), &args, &comm_));
  }
  void TearDown() override {
    if (comm_ != nullptr) {
      KIT_EXPECT_OK(omnirt_comm_destroy(backend(), comm_));
    }
    omnirt_file_store_destroy(store_);
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // Runs `collective` from `in` (pattern 0x3C) into `out` and checks that
  // `out` holds the input again, reading it back after `stream`'s work.
  void expect_identity(const char* what, omnirt_stream* stream,
                       const std::function<omnirt_status(void* in, void* out)>& collective) {
    SCOPED_TRACE(what);
    const size_t bytes = kCount * sizeof(float);
    DeviceMemory in(backend()), out(backend());
    KIT_ASSERT_OK(omnirt_malloc(backend(), 0, bytes, in.out()));
    KIT_ASSERT_OK(omnirt_malloc(backend(), 0, bytes, out.out()));
    std::vector<unsigned char> pattern(bytes, 0x3C), back(bytes, 0);
    KIT_ASSERT_OK(omnirt_memcpy(backend(), in.get(), pattern.data(), bytes, OMNIRT_MEMCPY_HOST_TO_DEVICE));
    KIT_ASSERT_OK(omnirt_memset(backend(), out.get(), 0, bytes));
    KIT_ASSERT_OK(collective(in.get(), out.get()));
    if (stream != nullptr) {
      KIT_ASSERT_OK(omnirt_stream_synchronize(backend(), stream));
    }
    KIT_ASSERT_OK(omnirt_memcpy(backend(), back.data(), out.get(), bytes, OMNIRT_MEMCPY_DEVICE_TO_HOST));
    EXPECT_EQ(back, pattern) << what << " of one rank did not copy its input to its output";
  }

  void every_collective(omnirt_stream* s) {
    omnirt_backend* b = backend();
    expect_identity("all_reduce (max)", s, [&](void* in, void* out) {
      return omnirt_all_reduce(b, comm_, in, out, kCount, OMNIRT_DTYPE_F32, OMNIRT_REDUCE_MAX, s);
    });
    expect_identity("all_gather", s, [&](void* in, void* out) {
      return omnirt_all_gather(b, comm_, in, out, kCount, OMNIRT_DTYPE_F32, s);
    });
    expect_identity("reduce_scatter (min)", s, [&](void* in, void* out) {
      return omnirt_reduce_scatter(b, comm_, in, out, kCount, OMNIRT_DTYPE_F32, OMNIRT_REDUCE_MIN, s);
    });
    expect_identity("broadcast", s, [&](void* in, void* out) {
      return omnirt_broadcast(b, comm_, in, out, kCount, OMNIRT_DTYPE_F32, 0, s);
    });
  }

  std::string dir_;
  omnirt_kv_store* store_ = nullptr;
  omnirt_comm* comm_ = nullptr;
};

KIT_TEST(Collectives, OneRankRunsEachCollectiveAsTheIdentity, 7) { every_collective(nullptr); }

KIT_TEST(Collectives, OneRankOnAStreamCompletesInStreamOrder, kContract) {
  KIT_REQUIRE(OMNIRT_FEATURE_STREAMS);
  Stream s(backend());
  KIT_ASSERT_OK(omnirt_stream_create(backend(), 0, s.out()));
  every_collective(s.get());
  KIT_EXPECT_OK(omnirt_comm_get_async_error(backend(), comm_));
}

KIT_TEST(Collectives, NameTheirLibrary, kContract) {
  char text[256] = "";
  KIT_ASSERT_OK(omnirt_collectives_library(backend(), text, sizeof text));
  EXPECT_STRNE(text, "") << "collectives_library wrote an empty name";
}

KIT_TEST(Collectives, RefuseABadCallAndStayUsable, kContract) {
  DeviceMemory d(backend());
  KIT_ASSERT_OK(omnirt_malloc(backend(), 0, 64, d.out()));
  EXPECT_EQ(omnirt_all_reduce(backend(), comm_, d.get(), d.get(), 4, OMNIRT_DTYPE_F32, 99, nullptr),
            OMNIRT_STATUS_INVALID_ARGUMENT)
      << "an unknown reduction must be INVALID_ARGUMENT";
  EXPECT_EQ(omnirt_broadcast(backend(), comm_, d.get(), d.get(), 4, OMNIRT_DTYPE_F32, 1, nullptr),
            OMNIRT_STATUS_INVALID_ARGUMENT)
      << "root 1 of a group of one must be INVALID_ARGUMENT";
  KIT_EXPECT_OK(omnirt_comm_get_async_error(backend(), comm_));
  KIT_EXPECT_OK(omnirt_all_reduce(backend(), comm_, d.get(), d.get(), 4, OMNIRT_DTYPE_F32, OMNIRT_REDUCE_SUM, nullptr));
}

}  // namespace
}  // namespace omnirt::conformance
