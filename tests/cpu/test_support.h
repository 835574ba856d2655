// Helpers shared by the cpu backend tests.
#ifndef OMNIRT_TESTS_CPU_TEST_SUPPORT_H_
#define OMNIRT_TESTS_CPU_TEST_SUPPORT_H_

#include <dirent.h>

#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu::testing {

// The status a call into the backend class ends with (its methods throw).
template <class F>
omnirt_status status_of(F&& call) {
  try {
    call();
    return OMNIRT_STATUS_OK;
  } catch (const plugin::Error& e) {
    return e.status();
  }
}

// Holds back a stream: work enqueued behind gate.task() runs only once the gate
// opens, so a test sees the stream busy for as long as it likes. Opens itself
// on destruction so that no stream is left blocked forever.
class Gate {
 public:
  Gate() : opened_(promise_.get_future().share()) {}
  ~Gate() {
    if (opener_.joinable()) opener_.join();
    open();
  }
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  std::function<void()> task() const {
    return [opened = opened_] { opened.wait(); };
  }
  void open() {
    std::call_once(once_, [this] { promise_.set_value(); });
  }
  // Opens from another thread after `delay`, while this one blocks elsewhere.
  void open_after(std::chrono::milliseconds delay) {
    opener_ = std::thread([this, delay] {
      std::this_thread::sleep_for(delay);
      open();
    });
  }

 private:
  std::promise<void> promise_;
  std::shared_future<void> opened_;
  std::once_flag once_;
  std::thread opener_;
};

// Threads of this process now (Linux: entries of /proc/self/task).
inline int thread_count() {
  int count = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (dirent* entry = readdir(dir)) count += entry->d_name[0] != '.';
    closedir(dir);
  }
  return count;
}

}  // namespace omnirt::cpu::testing

#endif  // OMNIRT_TESTS_CPU_TEST_SUPPORT_H_
