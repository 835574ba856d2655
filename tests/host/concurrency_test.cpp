// Threads and lifetimes: concurrent routing through one backend, hosts
// created concurrently, two hosts at once, hosts made and destroyed repeatedly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "test_support.h"

namespace omnirt_test {
namespace {

TEST(Concurrency, ManyThreadsRouteThroughOneBackend) {
  HostPtr host = make_host({ZOO_GOOD});
  omnirt_backend* backend = backend_named(host.get(), "good");
  ASSERT_NE(backend, nullptr);
  ASSERT_EQ(omnirt_reset_memory_stats(backend, 0), OMNIRT_STATUS_OK);
  constexpr int kThreads = 8;
  constexpr int kIterations = 500;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<unsigned char> host_copy(64 + t);
      for (int i = 0; i < kIterations; ++i) {
        void* ptr = nullptr;
        const size_t size = host_copy.size();
        bool ok = omnirt_malloc(backend, 0, size, &ptr) == OMNIRT_STATUS_OK &&
                  omnirt_memset(backend, ptr, t, size) == OMNIRT_STATUS_OK &&
                  omnirt_memcpy(backend, host_copy.data(), ptr, size, OMNIRT_MEMCPY_DEVICE_TO_HOST) ==
                      OMNIRT_STATUS_OK;
        ok = ok && host_copy.front() == t && host_copy.back() == t;
        ok = omnirt_free(backend, 0, ptr) == OMNIRT_STATUS_OK && ok;
        if (!ok) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  omnirt_memory_stats stats{};
  stats.struct_size = sizeof stats;
  ASSERT_EQ(omnirt_get_memory_stats(backend, 0, &stats), OMNIRT_STATUS_OK);
  EXPECT_EQ(stats.allocated_bytes, 0u);
  EXPECT_EQ(stats.alloc_count, uint64_t{kThreads} * kIterations);
  EXPECT_EQ(stats.free_count, uint64_t{kThreads} * kIterations);
}

TEST(Concurrency, LastErrorIsPerThread) {
  HostPtr host = make_host({ZOO_GOOD});
  omnirt_backend* backend = backend_named(host.get(), "good");
  void* ptr = nullptr;
  ASSERT_EQ(omnirt_malloc(backend, 0, size_t{4} << 30, &ptr), OMNIRT_STATUS_OUT_OF_MEMORY);
  std::thread other([&] {
    EXPECT_EQ(omnirt_last_error()->status, OMNIRT_STATUS_OK);
    EXPECT_STREQ(omnirt_last_error()->message, "");
    EXPECT_EQ(omnirt_malloc(backend, 7, 8, &ptr), OMNIRT_STATUS_OUT_OF_RANGE);
  });
  other.join();
  EXPECT_EQ(omnirt_last_error()->status, OMNIRT_STATUS_OUT_OF_MEMORY);
}

TEST(Concurrency, HostsCanBeCreatedFromSeveralThreadsAtOnce) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        omnirt_status status = OMNIRT_STATUS_INTERNAL;
        HostPtr host = make_host({ZOO_GOOD, ZOO_MINIMAL, ZOO_NOENTRY}, &status);
        if (status != OMNIRT_STATUS_OK || omnirt_host_backend_count(host.get()) != 2) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(Lifetime, TwoHostsHaveIndependentBackends) {
  HostPtr first = make_host({ZOO_GOOD});
  HostPtr second = make_host({ZOO_GOOD});
  omnirt_backend* a = backend_named(first.get(), "good");
  omnirt_backend* b = backend_named(second.get(), "good");
  ASSERT_TRUE(a && b);
  ASSERT_NE(a, b);
  void* ptr = nullptr;
  ASSERT_EQ(omnirt_malloc(a, 0, 4096, &ptr), OMNIRT_STATUS_OK);
  omnirt_memory_stats stats{};
  stats.struct_size = sizeof stats;
  ASSERT_EQ(omnirt_get_memory_stats(b, 0, &stats), OMNIRT_STATUS_OK);
  EXPECT_EQ(stats.allocated_bytes, 0u);
  // Destroying one host leaves the other's plugin loaded and working.
  omnirt_status status = omnirt_free(a, 0, ptr);
  first.reset();
  EXPECT_EQ(status, OMNIRT_STATUS_OK);
  ASSERT_EQ(omnirt_malloc(b, 0, 16, &ptr), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_memset(b, ptr, 1, 16), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_free(b, 0, ptr), OMNIRT_STATUS_OK);
}

TEST(Lifetime, HostsCanBeCreatedAndDestroyedRepeatedly) {
  for (int i = 0; i < 50; ++i) {
    HostPtr host = make_host({ZOO_GOOD, ZOO_THROWENTRY, ZOO_UNAVAIL});
    ASSERT_TRUE(host);
    omnirt_backend* backend = nullptr;
    ASSERT_EQ(omnirt_host_get_backend(host.get(), "auto", &backend), OMNIRT_STATUS_OK) << last_message();
    void* ptr = nullptr;
    ASSERT_EQ(omnirt_malloc(backend, 0, 128, &ptr), OMNIRT_STATUS_OK);
    ASSERT_EQ(omnirt_free(backend, 0, ptr), OMNIRT_STATUS_OK);
  }
}

}  // namespace
}  // namespace omnirt_test
