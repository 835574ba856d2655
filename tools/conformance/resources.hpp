// Owners for what a test takes from the backend, so that a failed assertion
// leaks nothing into later tests (whose memory statistics would see it), and
// byte patterns and round trips to check data with.
#ifndef OMNIRT_CONFORMANCE_RESOURCES_HPP_
#define OMNIRT_CONFORMANCE_RESOURCES_HPP_

#include <gtest/gtest.h>
#include <omnirt/host.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kit.hpp"

namespace omnirt::conformance {

// A handle that `Destroy` gives back; fill it through out().
template <class T, omnirt_status (*Destroy)(omnirt_backend*, T*)>
class Owned {
 public:
  explicit Owned(omnirt_backend* backend) : backend_(backend) {}
  ~Owned() { reset(); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;

  T* get() const { return handle_; }
  T** out() { return &handle_; }
  // Destroys now and returns the status (the destructor ignores it).
  omnirt_status reset() {
    T* h = handle_;
    handle_ = nullptr;
    return h == nullptr ? OMNIRT_STATUS_OK : Destroy(backend_, h);
  }

 private:
  omnirt_backend* backend_;
  T* handle_ = nullptr;
};

using Stream = Owned<omnirt_stream, omnirt_stream_destroy>;
using Event = Owned<omnirt_event, omnirt_event_destroy>;
using Graph = Owned<omnirt_graph, omnirt_graph_destroy>;
using PinnedMemory = Owned<void, omnirt_free_host>;

// Device memory, which omnirt_free gives back per device.
class DeviceMemory {
 public:
  explicit DeviceMemory(omnirt_backend* backend, int32_t device = 0)
      : backend_(backend), device_(device) {}
  ~DeviceMemory() { omnirt_free(backend_, device_, ptr_); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void* get() const { return ptr_; }
  unsigned char* bytes() const { return static_cast<unsigned char*>(ptr_); }
  void** out() { return &ptr_; }

 private:
  omnirt_backend* backend_;
  int32_t device_;
  void* ptr_ = nullptr;
};

// Host memory for asynchronous copies: pinned when the backend offers it, as
// real callers use (a backend may copy pageable memory synchronously, which
// would hide ordering bugs), else ordinary memory.
class StagingBuffer {
 public:
  StagingBuffer(omnirt_backend* backend, size_t size, unsigned char fill)
      : pinned_(backend), size_(size) {
    if ((kit().caps.features & OMNIRT_FEATURE_HOST_ALLOC) != 0 &&
        omnirt_malloc_host(backend, size, pinned_.out()) == OMNIRT_STATUS_OK) {
      data_ = static_cast<unsigned char*>(pinned_.get());
    } else {
      plain_.resize(size);
      data_ = plain_.data();
    }
    std::fill(data_, data_ + size, fill);
  }
  unsigned char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  PinnedMemory pinned_;
  std::vector<unsigned char> plain_;
  size_t size_;
  unsigned char* data_ = nullptr;
};

// `size` bytes that differ from their neighbours and, with another `seed`,
// from another pattern's.
inline std::vector<unsigned char> pattern(size_t size, unsigned seed) {
  std::vector<unsigned char> out(size);
  for (size_t i = 0; i < size; ++i) {
    out[i] = static_cast<unsigned char>((i * 131u + seed * 17u + (i >> 8)) & 0xFFu);
  }
  return out;
}

// "" when `size` bytes at `got` equal those at `want`, else which byte differs.
inline std::string byte_difference(const void* got, const void* want, size_t size) {
  const auto* g = static_cast<const unsigned char*>(got);
  const auto* w = static_cast<const unsigned char*>(want);
  for (size_t i = 0; i < size; ++i) {
    if (g[i] != w[i]) {
      return "byte " + std::to_string(i) + " of " + std::to_string(size) + " is " +
             std::to_string(g[i]) + ", expected " + std::to_string(w[i]);
    }
  }
  return "";
}

// "" when `size` bytes of pattern(size, seed) went to device 0 of `backend`
// and back intact, else what failed.
inline std::string round_trip_problem(omnirt_backend* backend, size_t size, unsigned seed) {
  const std::vector<unsigned char> in = pattern(size, seed);
  std::vector<unsigned char> out(size, 0);
  DeviceMemory d(backend);
  for (const omnirt_status s :
       {omnirt_malloc(backend, 0, size, d.out()),
        omnirt_memcpy(backend, d.get(), in.data(), size, OMNIRT_MEMCPY_HOST_TO_DEVICE),
        omnirt_memcpy(backend, out.data(), d.get(), size, OMNIRT_MEMCPY_DEVICE_TO_HOST)}) {
    if (s != OMNIRT_STATUS_OK) return describe_failure(s);
  }
  return byte_difference(out.data(), in.data(), size);
}

inline ::testing::AssertionResult BytesEqual(const char*, const char*, const char*, const char*,
                                             const std::string& what, const void* got,
                                             const void* want, size_t size) {
  const std::string difference = byte_difference(got, want, size);
  if (difference.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << difference;
}

inline ::testing::AssertionResult BytesFilled(const char* a, const char* b, const char* c,
                                              const char* d, const std::string& what,
                                              const void* got, int value, size_t size) {
  const std::vector<unsigned char> want(size, static_cast<unsigned char>(value));
  return BytesEqual(a, b, c, d, what, got, want.data(), size);
}

// Checks data read back; a failure says `what` (a string) and the first byte
// that differs, on one line.
#define KIT_EXPECT_BYTES(what, got, want, size) \
  EXPECT_PRED_FORMAT4(::omnirt::conformance::BytesEqual, what, got, want, size)
#define KIT_EXPECT_FILLED(what, got, value, size) \
  EXPECT_PRED_FORMAT4(::omnirt::conformance::BytesFilled, what, got, value, size)

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_RESOURCES_HPP_
