// The caching allocator's bookkeeping on a fake device: runs everywhere, CI too.
#include "caching_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <unordered_map>
#include <vector>

#include "omnirt/cpp/plugin.hpp"
#include "pointer_table.h"

namespace omnirt::cuda {
namespace {

// Host memory with a capacity, and events the test completes by hand.
class FakeDevice : public DeviceMemory {
 public:
  explicit FakeDevice(size_t capacity) : capacity_(capacity) {}
  ~FakeDevice() override { EXPECT_TRUE(live_.empty()) << "the allocator leaked device memory"; }
  void* allocate(size_t bytes) override {
    if (used_ + bytes > capacity_) return nullptr;
    used_ += bytes;
    void* p = std::malloc(bytes);
    live_[p] = bytes;
    return p;
  }
  void deallocate(void* ptr) override {
    ASSERT_EQ(live_.count(ptr), 1u);
    used_ -= live_[ptr];
    live_.erase(ptr);
    std::free(ptr);
  }
  Event record(Stream stream) override {
    recorded_on.push_back(stream);
    events_.push_back(false);
    return reinterpret_cast<Event>(events_.size());  // 1-based index
  }
  bool done(Event event) override { return events_[reinterpret_cast<size_t>(event) - 1]; }
  void release(Event) override { ++released_events; }
  void synchronize() override {
    ++synchronizations;
    for (size_t i = 0; i < events_.size(); ++i) events_[i] = true;
  }
  void complete_all() { synchronize(); }

  std::vector<Stream> recorded_on;
  int released_events = 0;
  int synchronizations = 0;

 private:
  size_t capacity_;
  size_t used_ = 0;
  std::map<void*, size_t> live_;
  std::vector<bool> events_;
};

const DeviceMemory::Stream kStreamA = reinterpret_cast<DeviceMemory::Stream>(0xA);
const DeviceMemory::Stream kStreamB = reinterpret_cast<DeviceMemory::Stream>(0xB);

TEST(CachingAllocatorTest, SizeClassesRoundUpByAtMostAQuarter) {
  EXPECT_EQ(CachingAllocator::size_class(1), 512u);
  EXPECT_EQ(CachingAllocator::size_class(512), 512u);
  EXPECT_EQ(CachingAllocator::size_class(513), 640u);
  EXPECT_EQ(CachingAllocator::size_class(1024), 1024u);
  EXPECT_EQ(CachingAllocator::size_class(1025), 1280u);
  EXPECT_EQ(CachingAllocator::size_class(size_t{3} << 20), size_t{3} << 20);
  for (size_t size = 1; size < (size_t{1} << 24); size = size * 3 / 2 + 7) {
    const size_t rounded = CachingAllocator::size_class(size);
    EXPECT_GE(rounded, size);
    if (size > 512) {
      EXPECT_LE(rounded - size, size / 4) << size;
    }
    EXPECT_EQ(CachingAllocator::size_class(rounded), rounded) << "classes are fixed points";
  }
}

TEST(CachingAllocatorTest, ReusesAFreedBlockOnTheSameStreamWithoutTheDevice) {
  FakeDevice device(1 << 20);
  CachingAllocator cache(device);
  void* a = cache.allocate(1000, kStreamA);
  cache.free(a, kStreamA);
  void* b = cache.allocate(1000, kStreamA);
  EXPECT_EQ(a, b);
  const CachingStats s = cache.stats();
  EXPECT_EQ(s.device_allocs, 1u);
  EXPECT_EQ(s.alloc_count, 2u);
  EXPECT_EQ(s.free_count, 1u);
  EXPECT_TRUE(device.recorded_on.empty()) << "same-stream reuse needs no event";
  cache.free(b, kStreamA);
}

TEST(CachingAllocatorTest, AnotherStreamWaitsForTheFreeingStreamsEvent) {
  FakeDevice device(1 << 20);
  CachingAllocator cache(device);
  void* a = cache.allocate(4096, kStreamA);
  cache.free(a, kStreamA);
  // Stream A's work is not done: B gets fresh memory, and an event now marks A.
  void* b = cache.allocate(4096, kStreamB);
  EXPECT_NE(a, b);
  ASSERT_EQ(device.recorded_on.size(), 1u);
  EXPECT_EQ(device.recorded_on[0], kStreamA);
  // Once A's event completes, B may take A's block; the event goes back.
  device.complete_all();
  void* c = cache.allocate(4096, kStreamB);
  EXPECT_EQ(c, a);
  EXPECT_EQ(device.released_events, 1);
  EXPECT_EQ(cache.stats().device_allocs, 2u);
  cache.free(b, kStreamB);
  cache.free(c, kStreamB);
}

TEST(CachingAllocatorTest, ARetiredStreamsBlocksServeEveryStream) {
  FakeDevice device(1 << 20);
  CachingAllocator cache(device);
  void* a = cache.allocate(100, kStreamA);
  cache.free(a, kStreamA);
  cache.stream_retired(kStreamA);
  EXPECT_EQ(cache.allocate(100, kStreamB), a);
  EXPECT_TRUE(device.recorded_on.empty());
  cache.free(a, kStreamB);
}

TEST(CachingAllocatorTest, StatsCountRequestedAndReservedBytes) {
  FakeDevice device(1 << 20);
  CachingAllocator cache(device);
  void* a = cache.allocate(1000, nullptr);  // class 1024
  void* b = cache.allocate(3000, nullptr);  // class 3072
  CachingStats s = cache.stats();
  EXPECT_EQ(s.allocated_bytes, 4000u);
  EXPECT_EQ(s.reserved_bytes, 1024u + 3072u);
  EXPECT_EQ(s.peak_bytes, 4000u);
  cache.free(b, nullptr);
  s = cache.stats();
  EXPECT_EQ(s.allocated_bytes, 1000u);
  EXPECT_EQ(s.peak_bytes, 4000u);
  EXPECT_EQ(s.cached_bytes, 3072u);
  EXPECT_EQ(s.reserved_bytes, 1024u + 3072u);
  cache.reset_stats();
  s = cache.stats();
  EXPECT_EQ(s.peak_bytes, 1000u);
  EXPECT_EQ(s.alloc_count, 0u);
  EXPECT_EQ(s.free_count, 0u);
  EXPECT_EQ(cache.release_cached(), 3072u);
  s = cache.stats();
  EXPECT_EQ(s.reserved_bytes, 1024u);
  EXPECT_EQ(s.cached_bytes, 0u);
  cache.free(a, nullptr);
}

TEST(CachingAllocatorTest, OutOfMemoryReleasesTheCacheAndRetries) {
  FakeDevice device(8192);
  CachingAllocator cache(device);
  void* small = cache.allocate(4096, kStreamA);
  cache.free(small, kStreamA);  // cached: 4096 of the 8192 held
  void* big = cache.allocate(6000, kStreamA);  // class 6144: fits only without the cache
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(device.synchronizations, 1) << "cached blocks go back only once the device is idle";
  EXPECT_EQ(cache.stats().reserved_bytes, 6144u);
  try {
    cache.allocate(4096, kStreamA);
    FAIL() << "expected OUT_OF_MEMORY";
  } catch (const plugin::Error& e) {
    EXPECT_EQ(e.status(), OMNIRT_STATUS_OUT_OF_MEMORY);
    EXPECT_NE(std::string(e.what()).find("4096"), std::string::npos) << e.what();
  }
  cache.free(big, kStreamA);
}

TEST(CachingAllocatorTest, RejectsUnknownPointersAndIgnoresNull) {
  FakeDevice device(1 << 20);
  CachingAllocator cache(device);
  EXPECT_EQ(cache.allocate(0, nullptr), nullptr);
  cache.free(nullptr, nullptr);
  int not_ours = 0;
  try {
    cache.free(&not_ours, nullptr);
    FAIL() << "expected INVALID_ARGUMENT";
  } catch (const plugin::Error& e) {
    EXPECT_EQ(e.status(), OMNIRT_STATUS_INVALID_ARGUMENT);
  }
  void* a = cache.allocate(10, nullptr);
  cache.free(a, nullptr);
  const CachingStats before = cache.stats();
  try {
    cache.free(a, nullptr);
    FAIL() << "expected INVALID_ARGUMENT for a double free";
  } catch (const plugin::Error& e) {
    EXPECT_EQ(e.status(), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("already freed"), std::string::npos) << e.what();
  }
  const CachingStats after = cache.stats();
  EXPECT_EQ(after.free_count, before.free_count) << "a rejected free changes nothing";
  EXPECT_EQ(after.cached_bytes, before.cached_bytes);
  EXPECT_EQ(cache.allocate(10, nullptr), a) << "the block is cached once, not twice";
  EXPECT_NE(cache.allocate(10, nullptr), a);
}

TEST(CachingAllocatorTest, EverySizeClassHasItsOwnBin) {
  FakeDevice device(size_t{1} << 30);
  CachingAllocator cache(device);
  // One block of each class from 512 B to 64 MiB, freed, then asked for again
  // by size: each request gets the block of its own class back.
  std::map<size_t, void*> by_class;
  for (size_t size = 1; size <= (size_t{64} << 20); size = size * 5 / 4 + 1) {
    const size_t rounded = CachingAllocator::size_class(size);
    if (by_class.count(rounded) == 0) by_class[rounded] = cache.allocate(size, nullptr);
  }
  for (const auto& [rounded, ptr] : by_class) cache.free(ptr, nullptr);
  for (const auto& [rounded, ptr] : by_class) {
    EXPECT_EQ(cache.allocate(rounded, nullptr), ptr) << rounded;
  }
  EXPECT_EQ(cache.stats().device_allocs, by_class.size());
  for (const auto& [rounded, ptr] : by_class) cache.free(ptr, nullptr);
}

TEST(PointerTableTest, AgreesWithAMapThroughGrowthAndErasure) {
  PointerTable<int> table;
  std::unordered_map<const void*, int*> model;
  std::vector<int> values(20000);
  std::mt19937_64 random(42);
  // 512-byte aligned addresses, like device blocks, many landing on one home.
  auto address = [&] { return reinterpret_cast<const void*>((random() % 100000 + 1) * 512); };
  for (int round = 0; round < 20000; ++round) {
    const void* key = address();
    if (random() % 3 != 0) {
      if (model.count(key) != 0) continue;
      table.insert(key, &values[size_t(round)]);
      model[key] = &values[size_t(round)];
    } else {
      table.erase(key);
      model.erase(key);
    }
  }
  ASSERT_EQ(table.size(), model.size());
  for (const auto& [key, value] : model) ASSERT_EQ(table.find(key), value);
  for (int i = 0; i < 20000; ++i) {
    const void* key = address();
    ASSERT_EQ(table.find(key), model.count(key) != 0 ? model[key] : nullptr);
  }
  std::set<const void*> seen;
  table.for_each([&](const void* key, int* value) {
    EXPECT_EQ(model.at(key), value);
    seen.insert(key);
  });
  EXPECT_EQ(seen.size(), model.size());
}

TEST(CachingAllocatorTest, DestructionReturnsLiveAndCachedBlocks) {
  FakeDevice device(1 << 20);  // its destructor checks that nothing leaked
  {
    CachingAllocator cache(device);
    cache.allocate(100, kStreamA);  // never freed by the caller
    cache.free(cache.allocate(5000, kStreamA), kStreamA);
  }
}

// Threads allocating and freeing on their own streams, while another reads
// the statistics: every snapshot is one the allocator passed through, and the
// totals come out exact.
TEST(CachingAllocatorTest, ThreadsKeepTheStatisticsExactAndEverySnapshotConsistent) {
  FakeDevice device(size_t{256} << 20);
  CachingAllocator cache(device);
  constexpr int kThreads = 4, kPairs = 20000, kHeld = 8;
  std::atomic<bool> done{false};
  uint64_t inconsistent = 0, snapshots = 0;
  std::thread reader([&] {
    while (!done) {
      const CachingStats s = cache.stats();
      if (s.peak_bytes < s.allocated_bytes || s.reserved_bytes < s.cached_bytes ||
          s.reserved_bytes - s.cached_bytes < s.allocated_bytes) {
        ++inconsistent;
      }
      ++snapshots;
    }
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      const auto stream = reinterpret_cast<DeviceMemory::Stream>(uintptr_t(0x100 + t));
      std::mt19937 random(t);
      std::vector<void*> held;
      for (int i = 0; i < kPairs; ++i) {
        held.push_back(cache.allocate(1 + random() % 65536, stream));
        if (held.size() == kHeld) {
          for (void* ptr : held) cache.free(ptr, stream);
          held.clear();
        }
      }
      for (void* ptr : held) cache.free(ptr, stream);
    });
  }
  for (std::thread& w : workers) w.join();
  done = true;
  reader.join();
  const CachingStats s = cache.stats();
  EXPECT_EQ(inconsistent, 0u) << "of " << snapshots << " snapshots";
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.alloc_count, uint64_t{kThreads} * kPairs);
  EXPECT_EQ(s.free_count, uint64_t{kThreads} * kPairs);
  EXPECT_EQ(s.cached_bytes, s.reserved_bytes);
  EXPECT_GT(s.peak_bytes, 0u);
  EXPECT_LE(s.peak_bytes, uint64_t{kThreads} * kHeld * 65536);
}

TEST(CachingAllocatorTest, ReadingStatisticsFromAnotherThreadKeepsTheLocksBias) {
  if (!BiasedMutex::bias_supported()) GTEST_SKIP() << "membarrier is unavailable here";
  FakeDevice device(1 << 20);
  CachingAllocator cache(device);
  void* a = cache.allocate(1000, nullptr);
  ASSERT_TRUE(cache.lock_biased_to_caller());
  std::thread([&] { EXPECT_EQ(cache.stats().allocated_bytes, 1000u); }).join();
  EXPECT_TRUE(cache.lock_biased_to_caller());
  std::thread([&] { cache.free(cache.allocate(10, nullptr), nullptr); }).join();
  EXPECT_FALSE(cache.lock_biased_to_caller()) << "another thread allocated: the bias is gone";
  cache.free(a, nullptr);
  EXPECT_EQ(cache.stats().allocated_bytes, 0u);
}

}  // namespace
}  // namespace omnirt::cuda
