// The machine behind the simulated vendor runtimes (libascendcl.so and
// libcnrt.so built for tests): devices backed by host memory with a memory
// budget, in-order streams run by worker threads, events that record real
// timestamps, and failure injection. Each vendor facade (acl_sim.cpp,
// cnrt_sim.cpp) maps this onto its API, codes and messages.
//
// Switches, read when a session starts (see Machine::begin_session):
//   OMNIRT_SIM_DEVICE_COUNT         devices (default 2; 0 for none; at most kMaxDevices)
//   OMNIRT_SIM_MEMORY_BYTES         memory per device (default 64 MiB)
//   OMNIRT_SIM_DEVICE_LOST_AFTER=N  the device is lost after N device calls
//                                   (malloc, copy, stream, event...): call N+1
//                                   and every later one fail
//   OMNIRT_SIM_TASK_DELAY_MS        each stream task waits this long first,
//                                   so queries can observe pending work
//   OMNIRT_SIM_FAIL_INIT=1          runtime initialization fails
//   OMNIRT_SIM_NO_PEER=1            devices cannot copy to each other
#ifndef OMNIRT_TESTS_VENDORS_SIM_SIM_CORE_H_
#define OMNIRT_TESTS_VENDORS_SIM_SIM_CORE_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#define OMNIRT_SIM_EXPORT __attribute__((visibility("default")))

namespace omnirt::sim {

constexpr int kMaxDevices = 64;

struct Config {
  int devices = 2;
  size_t memory_bytes = size_t{64} << 20;
  uint64_t lost_after = 0;  // 0: never
  int task_delay_ms = 0;
  bool fail_init = false;
  bool peer_access = true;
};

// Reads the OMNIRT_SIM_* switches now.
Config read_config();

// An in-order queue of work on one device, run by its own thread.
class Stream {
 public:
  explicit Stream(int device);
  ~Stream();  // runs what is queued, then stops
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  int device() const { return device_; }
  void enqueue(std::function<void()> task);
  void synchronize();
  bool idle();

 private:
  void run();

  const int device_;
  const int delay_ms_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool busy_ = false;
  bool stop_ = false;
  std::thread worker_;
};

// A marker on a stream. Each record replaces the previous one; completion and
// the timestamp belong to the most recent record.
class Event {
 public:
  explicit Event(int device) : device_(device) {}
  int device() const { return device_; }

  void record_on(Stream& stream);
  bool recorded();
  bool complete();
  void wait();
  // Makes `stream` wait, in order, for the current record (if any).
  void make_wait(Stream& stream);
  // Milliseconds from `start` to `end`; nullopt unless both completed.
  static std::optional<double> elapsed_ms(Event& start, Event& end);

 private:
  struct Record {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
    std::chrono::steady_clock::time_point at;
    void finish();
    void wait();
  };
  std::shared_ptr<Record> current();

  const int device_;
  std::mutex mutex_;
  std::shared_ptr<Record> last_;
};

struct Block {
  int device;  // -1: pinned host memory
  uintptr_t base;
  size_t size;
};

// The simulated machine: one per loaded runtime library.
class Machine {
 public:
  static Machine& get();

  // Starts a new session, re-reading the switches, if nothing is live (no
  // memory, streams or events); a no-op otherwise. Called where the vendor
  // API counts devices, which every client does first.
  void begin_session();
  const Config& config() const { return config_; }
  int device_count() const { return config_.devices; }
  bool valid_device(int device) const { return device >= 0 && device < config_.devices; }

  // Counts one device call; false once the simulated device is lost.
  bool work();

  // Device memory charged in units of `granularity` bytes; false when the
  // device's budget is exhausted.
  bool allocate(int device, size_t size, size_t granularity, void** out);
  bool allocate_host(size_t size, void** out);
  // Frees a block of `device` (-1: pinned host); false when `ptr` is none.
  bool release(int device, void* ptr);
  // The device block containing `ptr`.
  std::optional<Block> find(const void* ptr);
  void mem_info(int device, size_t* free_bytes, size_t* total_bytes);

  // The device's default stream, or the live stream a handle names (nullptr
  // for a handle that is not live).
  std::shared_ptr<Stream> default_stream(int device);
  std::shared_ptr<Stream> stream(const void* handle);
  Stream* create_stream(int device);
  bool destroy_stream(const void* handle);
  std::shared_ptr<Event> event(const void* handle);
  Event* create_event(int device);
  bool destroy_event(const void* handle);
  void synchronize(int device);

  // Everything still allocated or created: streams, events, blocks.
  int live_objects();

 private:
  Machine();
  ~Machine();

  std::mutex mutex_;
  Config config_;
  uint64_t calls_ = 0;
  std::vector<size_t> charged_;  // per device
  std::map<uintptr_t, Block> blocks_;
  std::map<uintptr_t, size_t> charge_of_;
  std::vector<std::shared_ptr<Stream>> default_streams_;
  std::map<const void*, std::shared_ptr<Stream>> streams_;
  std::map<const void*, std::shared_ptr<Event>> events_;
};

}  // namespace omnirt::sim

#endif  // OMNIRT_TESTS_VENDORS_SIM_SIM_CORE_H_
