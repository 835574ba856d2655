#include "caching_allocator.h"

#include <string>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cuda {
namespace {

// Marks a cached block whose stream was retired: every stream may take it.
const DeviceMemory::Stream kAnyStream = reinterpret_cast<DeviceMemory::Stream>(~uintptr_t{0});

}  // namespace

size_t CachingAllocator::size_class(size_t size) {
  constexpr size_t kMinimum = 512;
  if (size <= kMinimum) return kMinimum;
  // Four classes per power of two: [2^k, 2^(k+1)) in steps of 2^k / 4.
  const int k = 63 - __builtin_clzll(static_cast<unsigned long long>(size - 1));
  const size_t step = (size_t{1} << k) / 4;
  return (size + step - 1) / step * step;
}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    release_cached_locked();
    for (auto& [ptr, block] : live_) device_.deallocate(ptr);
  } catch (...) {  // destruction cannot fail; a lost device keeps its memory anyway
  }
}

void* CachingAllocator::allocate(size_t size, Stream stream) {
  if (size == 0) return nullptr;
  if (size > (SIZE_MAX >> 2)) {
    plugin::fail(OMNIRT_STATUS_OUT_OF_MEMORY, "cannot allocate " + std::to_string(size) + " bytes");
  }
  const size_t rounded = size_class(size);
  std::lock_guard<std::mutex> lock(mutex_);
  Node node;
  if (take_cached(rounded, stream, node)) {
    stats_.cached_bytes -= rounded;
  } else {
    void* ptr = device_.allocate(rounded);
    if (ptr == nullptr && release_cached_locked() > 0) ptr = device_.allocate(rounded);
    if (ptr == nullptr) {
      plugin::fail(OMNIRT_STATUS_OUT_OF_MEMORY,
                   "out of device memory allocating " + std::to_string(size) + " bytes (" +
                       std::to_string(stats_.allocated_bytes) + " bytes in use, cache released)");
    }
    stats_.reserved_bytes += rounded;
    ++stats_.device_allocs;
    node = live_.extract(live_.emplace(ptr, Block{ptr, rounded, 0, nullptr, nullptr}).first);
  }
  Block& block = node.mapped();
  block.requested = size;
  block.stream = stream;
  void* ptr = block.ptr;
  live_.insert(std::move(node));
  stats_.allocated_bytes += size;
  if (stats_.allocated_bytes > stats_.peak_bytes) stats_.peak_bytes = stats_.allocated_bytes;
  ++stats_.alloc_count;
  return ptr;
}

bool CachingAllocator::take_cached(size_t size, Stream stream, Node& out) {
  auto bin = cached_.find(size);
  if (bin == cached_.end() || bin->second.empty()) return false;
  std::vector<Node>& nodes = bin->second;
  auto take = [&](size_t i) {
    out = std::move(nodes[i]);
    Block& block = out.mapped();
    if (block.event != nullptr) device_.release(block.event);
    block.event = nullptr;
    if (i + 1 != nodes.size()) nodes[i] = std::move(nodes.back());
    nodes.pop_back();
    return true;
  };
  // Same stream (or retired): stream order already protects the last use.
  for (size_t i = nodes.size(); i-- > 0;) {
    const Stream last = nodes[i].mapped().stream;
    if (last == stream || last == kAnyStream) return take(i);
  }
  // Another stream's block: only once its work is known to be done.
  for (size_t i = nodes.size(); i-- > 0;) {
    Block& candidate = nodes[i].mapped();
    if (candidate.event == nullptr) candidate.event = device_.record(candidate.stream);
    if (device_.done(candidate.event)) return take(i);
  }
  return false;
}

void CachingAllocator::free(void* ptr, Stream stream) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(ptr);
  if (it == live_.end()) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 "ptr: not a live allocation of this device's caching allocator");
  }
  Node node = live_.extract(it);
  Block& block = node.mapped();
  stats_.allocated_bytes -= block.requested;
  stats_.cached_bytes += block.size;
  ++stats_.free_count;
  block.requested = 0;
  block.stream = stream;
  cached_[block.size].push_back(std::move(node));
}

void CachingAllocator::stream_retired(Stream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [size, nodes] : cached_) {
    for (Node& node : nodes) {
      Block& block = node.mapped();
      if (block.stream != stream) continue;
      if (block.event != nullptr) device_.release(block.event);
      block.event = nullptr;
      block.stream = kAnyStream;
    }
  }
}

uint64_t CachingAllocator::release_cached() {
  std::lock_guard<std::mutex> lock(mutex_);
  return release_cached_locked();
}

uint64_t CachingAllocator::release_cached_locked() {
  if (stats_.cached_bytes == 0) return 0;
  device_.synchronize();  // cached blocks may still be read by queued work
  uint64_t released = 0;
  for (auto& [size, nodes] : cached_) {
    for (Node& node : nodes) {
      const Block& block = node.mapped();
      if (block.event != nullptr) device_.release(block.event);
      device_.deallocate(block.ptr);
      released += block.size;
      ++stats_.device_frees;
    }
  }
  cached_.clear();
  stats_.reserved_bytes -= released;
  stats_.cached_bytes = 0;
  return released;
}

CachingStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_bytes = stats_.allocated_bytes;
  stats_.alloc_count = stats_.free_count = stats_.device_allocs = stats_.device_frees = 0;
}

}  // namespace omnirt::cuda
