// Rule 9, thread-safety: several threads allocate, copy, set and free at
// once, on their own and on shared streams, each checking its own data; the
// statistics balance afterwards.
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kit.hpp"
#include "resources.hpp"

namespace omnirt::conformance {
namespace {

class Threads : public KitTest {
 protected:
  // Collects what went wrong on worker threads, reported on the test's thread.
  void fail(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    if (problems_.size() < 10) problems_.push_back(what);
  }
  void expect_no_problems() {
    for (const std::string& p : problems_) ADD_FAILURE() << p;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> problems_;
};

constexpr int kThreads = 8;
constexpr int kIterations = 50;

bool ok(omnirt_status s) { return s == OMNIRT_STATUS_OK; }

uint64_t allocated_bytes() {
  omnirt_memory_stats stats{};
  stats.struct_size = sizeof stats;
  const bool known = (kit().caps.features & OMNIRT_FEATURE_MEMORY_STATS) &&
                     ok(omnirt_get_memory_stats(kit().session->backend(), 0, &stats)) &&
                     (stats.known & OMNIRT_STAT_ALLOCATED_BYTES);
  return known ? stats.allocated_bytes : 0;
}

KIT_TEST(Threads, ConcurrentMemoryTrafficKeepsEachThreadsData, 9) {
  omnirt_backend* b = backend();
  const uint64_t allocated_before = allocated_bytes();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, b, t] {
      for (int i = 0; i < kIterations; ++i) {
        const size_t size = 1 + (static_cast<size_t>(t) * 7919 + i * 104729) % 65536;
        const std::vector<unsigned char> in = pattern(size, static_cast<unsigned>(t * 1000 + i));
        std::vector<unsigned char> out(size, 0);
        DeviceMemory a(b), c(b);
        omnirt_capabilities caps{};
        caps.struct_size = sizeof caps;
        if (!ok(omnirt_malloc(b, 0, size, a.out())) || !ok(omnirt_malloc(b, 0, size, c.out())) ||
            !ok(omnirt_memcpy(b, a.get(), in.data(), size, OMNIRT_MEMCPY_HOST_TO_DEVICE)) ||
            !ok(omnirt_memcpy(b, c.get(), a.get(), size, OMNIRT_MEMCPY_DEVICE_TO_DEVICE)) ||
            !ok(omnirt_memset(b, a.get(), t, size)) ||
            !ok(omnirt_memcpy(b, out.data(), c.get(), size, OMNIRT_MEMCPY_DEVICE_TO_HOST)) ||
            !ok(omnirt_get_capabilities(b, &caps))) {
          return fail("thread " + std::to_string(t) + ": " +
                      describe_failure(omnirt_last_error()->status));
        }
        const std::string difference = byte_difference(out.data(), in.data(), size);
        if (!difference.empty()) return fail("thread " + std::to_string(t) + ": " + difference);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  expect_no_problems();
  EXPECT_EQ(allocated_bytes(), allocated_before)
      << "allocated_bytes does not balance after concurrent allocations and frees";
}

KIT_TEST(Threads, ConcurrentStreamWorkKeepsEachThreadsData, 9) {
  KIT_REQUIRE(OMNIRT_FEATURE_STREAMS | OMNIRT_FEATURE_ASYNC_COPY);
  omnirt_backend* b = backend();
  Stream shared(b);
  KIT_ASSERT_OK(omnirt_stream_create(b, 0, shared.out()));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, b, t, &shared] {
      constexpr size_t kSize = 65536;
      Stream own(b);
      DeviceMemory d(b);
      StagingBuffer out(b, kSize, 0);
      if (!ok(omnirt_stream_create(b, 0, own.out())) || !ok(omnirt_malloc(b, 0, kSize, d.out()))) {
        return fail("thread " + std::to_string(t) + ": " +
                    describe_failure(omnirt_last_error()->status));
      }
      for (int i = 0; i < kIterations; ++i) {
        // Alternate between a stream of its own and one all threads share.
        omnirt_stream* s = i % 2 == 0 ? own.get() : shared.get();
        const auto value = static_cast<unsigned char>(t * 16 + i % 16);
        if (!ok(omnirt_memset_async(b, d.get(), value, kSize, s)) ||
            !ok(omnirt_memcpy_async(b, out.data(), d.get(), kSize, OMNIRT_MEMCPY_DEVICE_TO_HOST, s)) ||
            !ok(omnirt_stream_synchronize(b, s))) {
          return fail("thread " + std::to_string(t) + ": " +
                      describe_failure(omnirt_last_error()->status));
        }
        const std::vector<unsigned char> want(kSize, value);
        const std::string difference = byte_difference(out.data(), want.data(), kSize);
        if (!difference.empty()) return fail("thread " + std::to_string(t) + ": " + difference);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  expect_no_problems();
}

}  // namespace
}  // namespace omnirt::conformance
