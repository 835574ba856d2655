#include "sim_core.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace omnirt::sim {
namespace {

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || text[0] == '\0') return fallback;
  return std::strtoull(text, nullptr, 0);
}

size_t round_up(size_t size, size_t granularity) {
  return (size + granularity - 1) / granularity * granularity;
}

// Device memory is host memory aligned like a real device allocator's.
constexpr size_t kDeviceAlignment = 512;

}  // namespace

Config read_config() {
  Config config;
  config.devices = static_cast<int>(
      std::min<uint64_t>(env_number("OMNIRT_SIM_DEVICE_COUNT", 2), kMaxDevices));
  config.memory_bytes = env_number("OMNIRT_SIM_MEMORY_BYTES", config.memory_bytes);
  config.lost_after = env_number("OMNIRT_SIM_DEVICE_LOST_AFTER", 0);
  config.task_delay_ms = static_cast<int>(env_number("OMNIRT_SIM_TASK_DELAY_MS", 0));
  config.fail_init = env_number("OMNIRT_SIM_FAIL_INIT", 0) != 0;
  config.peer_access = env_number("OMNIRT_SIM_NO_PEER", 0) == 0;
  return config;
}

// --- Stream ------------------------------------------------------------------

Stream::Stream(int device)
    : device_(device),
      delay_ms_(Machine::get().config().task_delay_ms),
      worker_([this] { run(); }) {}

Stream::~Stream() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

void Stream::enqueue(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_all();
}

void Stream::synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return tasks_.empty() && !busy_; });
}

bool Stream::idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  return tasks_.empty() && !busy_;
}

void Stream::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
    if (tasks_.empty()) return;  // stopping, and everything queued has run
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    busy_ = true;
    lock.unlock();
    if (delay_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    task();
    lock.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

// --- Event -------------------------------------------------------------------

void Event::Record::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    at = std::chrono::steady_clock::now();
    done = true;
  }
  cv.notify_all();
}

void Event::Record::wait() {
  std::unique_lock<std::mutex> lock(mutex);
  cv.wait(lock, [this] { return done; });
}

std::shared_ptr<Event::Record> Event::current() {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_;
}

void Event::record_on(Stream& stream) {
  auto record = std::make_shared<Record>();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last_ = record;
  }
  stream.enqueue([record] { record->finish(); });
}

bool Event::recorded() { return current() != nullptr; }

bool Event::complete() {
  std::shared_ptr<Record> record = current();
  if (record == nullptr) return false;
  std::lock_guard<std::mutex> lock(record->mutex);
  return record->done;
}

void Event::wait() {
  if (std::shared_ptr<Record> record = current()) record->wait();
}

void Event::make_wait(Stream& stream) {
  if (std::shared_ptr<Record> record = current()) stream.enqueue([record] { record->wait(); });
}

std::optional<double> Event::elapsed_ms(Event& start, Event& end) {
  std::shared_ptr<Record> first = start.current();
  std::shared_ptr<Record> last = end.current();
  if (first == nullptr || last == nullptr || !start.complete() || !end.complete()) {
    return std::nullopt;
  }
  return std::chrono::duration<double, std::milli>(last->at - first->at).count();
}

// --- Machine -----------------------------------------------------------------

Machine& Machine::get() {
  static Machine machine;
  return machine;
}

Machine::Machine() : config_(read_config()) { charged_.assign(config_.devices, 0); }

Machine::~Machine() {
  streams_.clear();
  default_streams_.clear();
  for (const auto& entry : blocks_) std::free(reinterpret_cast<void*>(entry.first));
}

void Machine::begin_session() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!blocks_.empty() || !streams_.empty() || !events_.empty()) return;
  default_streams_.clear();
  config_ = read_config();
  calls_ = 0;
  charged_.assign(config_.devices, 0);
}

bool Machine::work() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++calls_;
  return config_.lost_after == 0 || calls_ <= config_.lost_after;
}

bool Machine::allocate(int device, size_t size, size_t granularity, void** out) {
  const size_t charge = round_up(size, granularity);
  std::lock_guard<std::mutex> lock(mutex_);
  if (charged_[device] + charge > config_.memory_bytes) return false;
  void* ptr = std::aligned_alloc(kDeviceAlignment, round_up(size, kDeviceAlignment));
  if (ptr == nullptr) return false;
  charged_[device] += charge;
  blocks_[reinterpret_cast<uintptr_t>(ptr)] = Block{device, reinterpret_cast<uintptr_t>(ptr), size};
  charge_of_[reinterpret_cast<uintptr_t>(ptr)] = charge;
  *out = ptr;
  return true;
}

bool Machine::allocate_host(size_t size, void** out) {
  void* ptr = std::aligned_alloc(kDeviceAlignment, round_up(size, kDeviceAlignment));
  if (ptr == nullptr) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  blocks_[reinterpret_cast<uintptr_t>(ptr)] = Block{-1, reinterpret_cast<uintptr_t>(ptr), size};
  *out = ptr;
  return true;
}

bool Machine::release(int device, void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == blocks_.end() || it->second.device != device) return false;
  if (device >= 0) {
    charged_[device] -= charge_of_[it->first];
    charge_of_.erase(it->first);
  }
  blocks_.erase(it);
  std::free(ptr);
  return true;
}

std::optional<Block> Machine::find(const void* ptr) {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.upper_bound(address);
  if (it == blocks_.begin()) return std::nullopt;
  --it;
  if (it->second.device < 0 || address >= it->second.base + it->second.size) return std::nullopt;
  return it->second;
}

void Machine::mem_info(int device, size_t* free_bytes, size_t* total_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  *total_bytes = config_.memory_bytes;
  *free_bytes = config_.memory_bytes - charged_[device];
}

std::shared_ptr<Stream> Machine::default_stream(int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (default_streams_.size() < static_cast<size_t>(config_.devices)) {
    default_streams_.resize(config_.devices);
  }
  if (default_streams_[device] == nullptr)
    default_streams_[device] = std::make_shared<Stream>(device);
  return default_streams_[device];
}

std::shared_ptr<Stream> Machine::stream(const void* handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = streams_.find(handle);
  return it != streams_.end() ? it->second : nullptr;
}

Stream* Machine::create_stream(int device) {
  auto stream = std::make_shared<Stream>(device);
  std::lock_guard<std::mutex> lock(mutex_);
  streams_[stream.get()] = stream;
  return stream.get();
}

bool Machine::destroy_stream(const void* handle) {
  std::shared_ptr<Stream> owned;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = streams_.find(handle);
    if (it == streams_.end()) return false;
    owned = std::move(it->second);
    streams_.erase(it);
  }
  return true;  // the last owner drains the stream, outside the lock
}

std::shared_ptr<Event> Machine::event(const void* handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = events_.find(handle);
  return it != events_.end() ? it->second : nullptr;
}

Event* Machine::create_event(int device) {
  auto event = std::make_shared<Event>(device);
  std::lock_guard<std::mutex> lock(mutex_);
  events_[event.get()] = event;
  return event.get();
}

bool Machine::destroy_event(const void* handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_.erase(handle) != 0;
}

void Machine::synchronize(int device) {
  std::vector<std::shared_ptr<Stream>> of_device{default_stream(device)};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& entry : streams_) {
      if (entry.second->device() == device) of_device.push_back(entry.second);
    }
  }
  for (const auto& stream : of_device) stream->synchronize();
}

int Machine::live_objects() {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(blocks_.size() + streams_.size() + events_.size());
}

}  // namespace omnirt::sim
