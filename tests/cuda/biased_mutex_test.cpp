// BiasedMutex and SeqlockSnapshot, the caching allocator's lock and its
// statistics' publication: mutual exclusion through the bias, its revocation
// and plain locking; consistent snapshots under a concurrent writer.
#include "biased_mutex.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "seqlock_snapshot.h"

namespace omnirt::cuda {
namespace {

constexpr const char* kNoMembarrier =
    "membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) is unavailable here: the mutex never biases";

TEST(BiasedMutexTest, TheFirstThreadToLockTakesTheBias) {
  if (!BiasedMutex::bias_supported()) GTEST_SKIP() << kNoMembarrier;
  BiasedMutex mutex;
  EXPECT_FALSE(mutex.biased_to_caller());
  { std::lock_guard<BiasedMutex> lock(mutex); }
  EXPECT_TRUE(mutex.biased_to_caller());
  { std::lock_guard<BiasedMutex> lock(mutex); }
  EXPECT_TRUE(mutex.biased_to_caller());
}

TEST(BiasedMutexTest, ASecondThreadWaitsForTheBiasedOwnerToLeave) {
  BiasedMutex mutex;
  { std::lock_guard<BiasedMutex> lock(mutex); }  // this thread takes the bias
  mutex.lock();                                   // and holds the lock through it
  std::atomic<bool> other_inside{false};
  std::thread other([&] {
    std::lock_guard<BiasedMutex> lock(mutex);
    other_inside = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(other_inside) << "the second thread entered while the owner held the lock";
  mutex.unlock();
  other.join();
  EXPECT_TRUE(other_inside);
  EXPECT_FALSE(mutex.biased_to_caller()) << "the bias outlived its revocation";
  { std::lock_guard<BiasedMutex> lock(mutex); }  // the former owner now locks through the mutex
}

// A plain counter, incremented under the lock by threads that start while the
// first one holds the bias: any overlap of critical sections loses updates.
TEST(BiasedMutexTest, ExcludesThroughTheBiasItsRevocationAndAfter) {
  BiasedMutex mutex;
  long counter = 0;
  constexpr int kThreads = 4, kIncrements = 200000;
  auto work = [&] {
    for (int i = 0; i < kIncrements; ++i) {
      std::lock_guard<BiasedMutex> lock(mutex);
      counter = counter + 1;
    }
  };
  std::vector<std::thread> threads;
  threads.emplace_back(work);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // let it take the bias first
  for (int t = 1; t < kThreads; ++t) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(counter, long{kThreads} * kIncrements);
}

struct Pair {
  uint64_t a = 0, b = 0;  // the writer keeps b == 2 * a
};

TEST(SeqlockSnapshotTest, ReadersSeeOnlyWholeWrites) {
  SeqlockSnapshot<Pair> snapshot;
  EXPECT_EQ(snapshot.read().a, 0u);
  constexpr uint64_t kWrites = 1000000;
  std::atomic<bool> finished{false};
  std::thread writer([&] {
    for (uint64_t i = 1; i <= kWrites; ++i) snapshot.write(Pair{i, 2 * i});
    finished = true;
  });
  uint64_t last = 0, reads = 0, torn = 0, backwards = 0;
  while (!finished) {  // reads while the writer writes
    const Pair p = snapshot.read();
    if (p.b != 2 * p.a) ++torn;
    if (p.a < last) ++backwards;
    last = p.a;
    ++reads;
  }
  writer.join();
  EXPECT_EQ(torn, 0u) << "of " << reads << " reads";
  EXPECT_EQ(backwards, 0u);
  EXPECT_EQ(snapshot.read().a, kWrites);
}

}  // namespace
}  // namespace omnirt::cuda
