// The C++ wrapper omnirt/cpp/host.hpp: RAII ownership, moves, and statuses
// instead of exceptions.
#include <gtest/gtest.h>

#include <cstring>
#include <type_traits>
#include <utility>

#include "omnirt/cpp/host.hpp"
#include "test_support.h"

namespace omnirt_test {
namespace {

static_assert(!std::is_copy_constructible_v<omnirt::Host>);
static_assert(std::is_nothrow_move_constructible_v<omnirt::Host>);
static_assert(!std::is_copy_constructible_v<omnirt::DeviceBuffer>);
static_assert(std::is_nothrow_move_assignable_v<omnirt::Stream>);

uint64_t allocated_bytes(const omnirt::Backend& backend) {
  omnirt_memory_stats stats{};
  EXPECT_EQ(backend.memory_stats(0, &stats), OMNIRT_STATUS_OK);
  return stats.allocated_bytes;
}

TEST(CppWrapper, HostSelectsAndDescribesBackends) {
  omnirt::Host host;
  EXPECT_FALSE(host);
  ASSERT_EQ(host.create({ZOO_GOOD, ZOO_NOENTRY}, kIsolated), OMNIRT_STATUS_OK);
  EXPECT_TRUE(host);
  EXPECT_EQ(host.backend_count(), 1u);
  EXPECT_EQ(host.candidate_count(), 2u);
  omnirt_candidate candidate;
  ASSERT_EQ(host.candidate(1, &candidate), OMNIRT_STATUS_OK);
  EXPECT_STREQ(candidate.path, ZOO_NOENTRY);
  omnirt_search_dir dir;
  ASSERT_EQ(host.search_dir(0, &dir), OMNIRT_STATUS_OK);
  EXPECT_STREQ(dir.path, ZOO_GOOD);

  omnirt::Backend backend;
  ASSERT_EQ(host.backend("auto", &backend), OMNIRT_STATUS_OK);
  omnirt_backend_info info;
  ASSERT_EQ(backend.info(&info), OMNIRT_STATUS_OK);
  EXPECT_STREQ(info.name, "good");
  omnirt_capabilities caps;
  ASSERT_EQ(backend.capabilities(&caps), OMNIRT_STATUS_OK);
  EXPECT_STREQ(caps.vendor, "fake");
  omnirt_device_info device;
  ASSERT_EQ(backend.device_info(0, &device), OMNIRT_STATUS_OK);
  EXPECT_STREQ(device.name, "Fake Device 0");

  EXPECT_EQ(host.backend("missing", &backend), OMNIRT_STATUS_NOT_FOUND);
  EXPECT_FALSE(backend);
  EXPECT_STREQ(omnirt::last_error().message, "no backend named 'missing'; known backends: good");
}

TEST(CppWrapper, FailedCreateLeavesAnEmptyHost) {
  omnirt::Host host;
  TempDir dir;
  const std::string missing = dir / "missing.yaml";
  EXPECT_EQ(host.create({}, kIsolated, missing.c_str()), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_FALSE(host);
  EXPECT_EQ(host.backend_count(), 0u);
}

TEST(CppWrapper, BuffersAreFreedWhenTheyGoAway) {
  omnirt::Host host;
  ASSERT_EQ(host.create({ZOO_GOOD}, kIsolated), OMNIRT_STATUS_OK);
  omnirt::Backend backend;
  ASSERT_EQ(host.backend("good", &backend), OMNIRT_STATUS_OK);
  {
    omnirt::DeviceBuffer buffer;
    ASSERT_EQ(backend.malloc(0, 128, &buffer), OMNIRT_STATUS_OK);
    EXPECT_EQ(buffer.size(), 128u);
    EXPECT_EQ(buffer.device(), 0);
    ASSERT_EQ(backend.memset(buffer.data(), 4, buffer.size()), OMNIRT_STATUS_OK);
    omnirt::HostBuffer pinned;
    ASSERT_EQ(backend.malloc_host(128, &pinned), OMNIRT_STATUS_OK);
    ASSERT_EQ(backend.memcpy(pinned.data(), buffer.data(), 128, OMNIRT_MEMCPY_DEVICE_TO_HOST), OMNIRT_STATUS_OK);
    EXPECT_EQ(static_cast<unsigned char*>(pinned.data())[127], 4);
    EXPECT_EQ(allocated_bytes(backend), 256u);

    omnirt::DeviceBuffer moved = std::move(buffer);
    EXPECT_FALSE(buffer);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
    EXPECT_EQ(buffer.size(), 0u);
    EXPECT_EQ(moved.size(), 128u);
    EXPECT_EQ(moved.reset(), OMNIRT_STATUS_OK);
    EXPECT_EQ(allocated_bytes(backend), 128u);
  }
  EXPECT_EQ(allocated_bytes(backend), 0u);
}

TEST(CppWrapper, StreamsEventsAndGraphs) {
  omnirt::Host host;
  ASSERT_EQ(host.create({ZOO_GOOD}, kIsolated), OMNIRT_STATUS_OK);
  omnirt::Backend backend;
  ASSERT_EQ(host.backend(nullptr, &backend), OMNIRT_STATUS_OK);
  omnirt::DeviceBuffer buffer;
  ASSERT_EQ(backend.malloc(0, 64, &buffer), OMNIRT_STATUS_OK);
  omnirt::Stream stream;
  ASSERT_EQ(backend.create_stream(0, &stream), OMNIRT_STATUS_OK);
  omnirt::Event start;
  omnirt::Event end;
  ASSERT_EQ(backend.create_event(0, &start), OMNIRT_STATUS_OK);
  ASSERT_EQ(backend.create_event(0, &end), OMNIRT_STATUS_OK);

  ASSERT_EQ(start.record(stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(stream.memset_async(buffer.data(), 6, 64), OMNIRT_STATUS_OK);
  ASSERT_EQ(end.record(stream), OMNIRT_STATUS_OK);
  EXPECT_EQ(stream.query(), OMNIRT_STATUS_NOT_READY);
  ASSERT_EQ(end.synchronize(), OMNIRT_STATUS_OK);
  float ms = -1;
  ASSERT_EQ(start.elapsed_ms(end, &ms), OMNIRT_STATUS_OK);
  EXPECT_GE(ms, 0.0f);

  ASSERT_EQ(stream.begin_capture(), OMNIRT_STATUS_OK);
  ASSERT_EQ(stream.memset_async(buffer.data(), 8, 64), OMNIRT_STATUS_OK);
  omnirt::Graph graph;
  ASSERT_EQ(stream.end_capture(&graph), OMNIRT_STATUS_OK);
  ASSERT_TRUE(graph);
  ASSERT_EQ(graph.launch(stream), OMNIRT_STATUS_OK);
  ASSERT_EQ(stream.synchronize(), OMNIRT_STATUS_OK);
  unsigned char byte = 0;
  ASSERT_EQ(backend.memcpy(&byte, buffer.data(), 1, OMNIRT_MEMCPY_DEVICE_TO_HOST), OMNIRT_STATUS_OK);
  EXPECT_EQ(byte, 8);
}

TEST(CppWrapper, ReleaseHandsOwnershipBack) {
  omnirt::Host host;
  ASSERT_EQ(host.create({ZOO_GOOD}, kIsolated), OMNIRT_STATUS_OK);
  omnirt::Backend backend;
  ASSERT_EQ(host.backend("good", &backend), OMNIRT_STATUS_OK);
  omnirt::Stream stream;
  ASSERT_EQ(backend.create_stream(0, &stream), OMNIRT_STATUS_OK);
  omnirt_stream* raw = stream.release();
  EXPECT_FALSE(stream);
  EXPECT_EQ(omnirt_stream_destroy(backend.get(), raw), OMNIRT_STATUS_OK);

  omnirt_host* raw_host = nullptr;
  {
    omnirt::Host moved = std::move(host);
    raw_host = moved.get();
    EXPECT_FALSE(host);  // NOLINT(bugprone-use-after-move)
  }
  EXPECT_NE(raw_host, nullptr);
}

}  // namespace
}  // namespace omnirt_test
