// A cpu stream: an ordered queue of work run by the stream's own worker thread.
#ifndef OMNIRT_PLUGINS_CPU_CPU_STREAM_H_
#define OMNIRT_PLUGINS_CPU_CPU_STREAM_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu_event.h"

namespace omnirt::cpu {

class CpuStream {
 public:
  // Work the worker runs, in enqueue order. Must not throw.
  using Task = std::function<void()>;
  // A call that enqueues work on a stream. While the stream captures, commands
  // are kept for a graph instead of applied (see submit).
  using Command = std::function<void(CpuStream&)>;

  CpuStream() = default;
  // Runs the work still queued, then stops the worker.
  ~CpuStream();
  CpuStream(const CpuStream&) = delete;
  CpuStream& operator=(const CpuStream&) = delete;

  // Appends work; returns at once. The worker thread starts on first use, so
  // a stream that never gets work costs no thread.
  void enqueue(Task task);
  // Appends an event record: the marker completes once all work before it has
  // run, in the same step that counts it done, so a synchronized stream never
  // shows a pending marker and a completed marker never a busy stream.
  void enqueue_marker(std::shared_ptr<CpuEventMarker> marker);
  // Applies `command` to this stream now, or records it while capturing.
  void submit(Command command);
  // submit() for a command that only enqueues `task`.
  void submit_task(Task task);

  // Blocks until the work enqueued before this call has run.
  void synchronize();
  // True when every enqueued task has run.
  bool idle() const;

  // Throws INVALID_ARGUMENT when already capturing.
  void begin_capture();
  // The commands submitted since begin_capture. Throws INVALID_ARGUMENT when
  // not capturing.
  std::vector<Command> end_capture();
  bool capturing() const;

 private:
  struct Item {
    Task task;                                // may be empty
    std::shared_ptr<CpuEventMarker> marker;   // may be null
  };
  void push(Item item);
  void run_worker();

  mutable std::mutex mutex_;
  std::condition_variable work_queued_;
  std::condition_variable work_done_;
  std::deque<Item> queue_;
  uint64_t enqueued_ = 0;
  uint64_t completed_ = 0;
  bool stopping_ = false;
  bool capturing_ = false;
  std::vector<Command> captured_;
  std::thread worker_;
};

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_CPU_STREAM_H_
