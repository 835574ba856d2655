#include "caching_allocator.h"

#include <memory>
#include <string>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cuda {
namespace {

// Marks a cached block whose stream was retired: every stream may take it.
const DeviceMemory::Stream kAnyStream = reinterpret_cast<DeviceMemory::Stream>(~uintptr_t{0});

constexpr size_t kMinimumClass = 512;
constexpr int kMinimumClassLog2 = 9;

}  // namespace

// Sizes in (2^k, 2^(k+1)] round up to 2^k + j * 2^k / 4 for j = 1..4.
uint32_t CachingAllocator::bin_of(size_t size) {
  if (size <= kMinimumClass) return 0;
  const int k = 63 - __builtin_clzll(static_cast<unsigned long long>(size - 1));
  const int quarter = k - 2;
  const size_t j = ((size - 1) >> quarter) + 1 - 4;  // ceil(size / 2^(k-2)) - 4
  return uint32_t(4 * (k - kMinimumClassLog2) + j);
}

size_t CachingAllocator::size_class(size_t size) { return bin_size(bin_of(size)); }

size_t CachingAllocator::bin_size(uint32_t bin) {
  if (bin == 0) return kMinimumClass;
  const int k = int((bin - 1) / 4) + kMinimumClassLog2;
  const size_t j = (bin - 1) % 4 + 1;
  return (size_t{1} << k) + j * (size_t{1} << (k - 2));
}

CachingAllocator::~CachingAllocator() {
  Locked lock(*this);
  try {
    release_cached_locked();
    blocks_.for_each([this](const void*, Block* block) {
      device_.deallocate(block->ptr);
      delete block;
    });
  } catch (...) {  // destruction cannot fail; a lost device keeps its memory anyway
  }
}

// The newest block of the bin, freed by this very stream, is the hot path:
// taken without a scan. Defined ahead of allocate() so that it is inlined.
CachingAllocator::Block* CachingAllocator::take_cached(uint32_t bin, Stream stream) {
  std::vector<Block*>& blocks = cached_[bin];
  if (!blocks.empty() && blocks.back()->stream == stream && blocks.back()->event == nullptr) {
    Block* block = blocks.back();
    blocks.pop_back();
    return block;
  }
  return search_cached(blocks, stream);
}

void* CachingAllocator::allocate(size_t size, Stream stream) {
  if (size == 0) return nullptr;
  if (size > (SIZE_MAX >> 2)) {
    plugin::fail(OMNIRT_STATUS_OUT_OF_MEMORY, "cannot allocate " + std::to_string(size) + " bytes");
  }
  const uint32_t bin = bin_of(size);
  Locked lock(*this);
  Block* block = take_cached(bin, stream);
  if (block != nullptr) {
    stats_.cached_bytes -= block->size;
  } else {
    block = allocate_from_device(bin, bin_size(bin), size);
  }
  block->requested = size;
  block->stream = stream;
  stats_.allocated_bytes += size;
  if (stats_.allocated_bytes > stats_.peak_bytes) stats_.peak_bytes = stats_.allocated_bytes;
  ++stats_.alloc_count;
  return block->ptr;
}

CachingAllocator::Block* CachingAllocator::allocate_from_device(uint32_t bin, size_t rounded,
                                                                size_t size) {
  void* ptr = device_.allocate(rounded);
  if (ptr == nullptr && release_cached_locked() > 0) ptr = device_.allocate(rounded);
  if (ptr == nullptr) {
    plugin::fail(OMNIRT_STATUS_OUT_OF_MEMORY,
                 "out of device memory allocating " + std::to_string(size) + " bytes (" +
                     std::to_string(stats_.allocated_bytes) + " bytes in use, cache released)");
  }
  Block* block = nullptr;
  try {
    block = new Block{ptr, rounded, 0, bin, nullptr, nullptr};
    blocks_.insert(ptr, block);
  } catch (...) {  // out of host memory: the device memory must not leak
    delete block;
    device_.deallocate(ptr);
    throw;
  }
  stats_.reserved_bytes += rounded;
  ++stats_.device_allocs;
  return block;
}

CachingAllocator::Block* CachingAllocator::search_cached(std::vector<Block*>& blocks, Stream stream) {
  auto take = [&](size_t i) {
    Block* block = blocks[i];
    if (block->event != nullptr) device_.release(block->event);
    block->event = nullptr;
    if (i + 1 != blocks.size()) blocks[i] = blocks.back();
    blocks.pop_back();
    return block;
  };
  // Same stream (or retired): stream order already protects the last use.
  for (size_t i = blocks.size(); i-- > 0;) {
    const Stream last = blocks[i]->stream;
    if (last == stream || last == kAnyStream) return take(i);
  }
  // Another stream's block: only once its work is known to be done.
  for (size_t i = blocks.size(); i-- > 0;) {
    Block& candidate = *blocks[i];
    if (candidate.event == nullptr) candidate.event = device_.record(candidate.stream);
    if (device_.done(candidate.event)) return take(i);
  }
  return nullptr;
}

void CachingAllocator::free(void* ptr, Stream stream) {
  if (ptr == nullptr) return;
  Locked lock(*this);
  Block* block = blocks_.find(ptr);
  if (block == nullptr || block->requested == 0) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 block == nullptr ? "ptr: not an allocation of this device's caching allocator"
                                  : "ptr: already freed");
  }
  cached_[block->bin].push_back(block);  // first: it may throw, and then nothing changed
  stats_.allocated_bytes -= block->requested;
  stats_.cached_bytes += block->size;
  ++stats_.free_count;
  block->requested = 0;
  block->stream = stream;
}

void CachingAllocator::stream_retired(Stream stream) {
  Locked lock(*this);
  for (std::vector<Block*>& blocks : cached_) {
    for (Block* block : blocks) {
      if (block->stream != stream) continue;
      if (block->event != nullptr) device_.release(block->event);
      block->event = nullptr;
      block->stream = kAnyStream;
    }
  }
}

uint64_t CachingAllocator::release_cached() {
  Locked lock(*this);
  return release_cached_locked();
}

uint64_t CachingAllocator::release_cached_locked() {
  if (stats_.cached_bytes == 0) return 0;
  device_.synchronize();  // cached blocks may still be read by queued work
  uint64_t released = 0;
  for (std::vector<Block*>& blocks : cached_) {
    while (!blocks.empty()) {
      // Forgotten before the device call: a device that fails to free keeps
      // the memory, and the books stay right.
      const std::unique_ptr<Block> block(blocks.back());
      blocks.pop_back();
      blocks_.erase(block->ptr);
      stats_.reserved_bytes -= block->size;
      stats_.cached_bytes -= block->size;
      released += block->size;
      ++stats_.device_frees;
      if (block->event != nullptr) device_.release(block->event);
      device_.deallocate(block->ptr);
    }
  }
  return released;
}

void CachingAllocator::reset_stats() {
  Locked lock(*this);
  stats_.peak_bytes = stats_.allocated_bytes;
  stats_.alloc_count = stats_.free_count = stats_.device_allocs = stats_.device_frees = 0;
}

}  // namespace omnirt::cuda
