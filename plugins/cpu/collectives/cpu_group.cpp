#include "cpu_group.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace omnirt::cpu {
namespace {

// The operations of one communicator, in issue order.
struct Batch {
  std::shared_ptr<CpuComm> comm;
  std::vector<omnirt_cpu_gloo_op> ops;
};

std::vector<Batch> batches_of(const std::vector<IssuedOp>& ops) {
  std::vector<Batch> batches;
  for (const IssuedOp& issued : ops) {
    auto it = std::find_if(batches.begin(), batches.end(),
                           [&](const Batch& b) { return b.comm == issued.comm; });
    if (it == batches.end()) it = batches.insert(batches.end(), Batch{issued.comm, {}});
    it->ops.push_back(issued.op);
  }
  return batches;
}

void run_batch(Batch& batch, std::exception_ptr* error) {
  try {
    batch.comm->run(batch.ops.data(), batch.ops.size());
  } catch (...) {
    *error = std::current_exception();
  }
}

// Every batch at once, the calling thread taking the first; the first failure.
std::exception_ptr run_batches(std::vector<Batch>& batches) {
  std::vector<std::exception_ptr> errors(batches.size());
  std::vector<std::thread> threads;
  for (size_t i = 1; i < batches.size(); ++i) {
    threads.emplace_back(run_batch, std::ref(batches[i]), &errors[i]);
  }
  run_batch(batches[0], &errors[0]);
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& error : errors) {
    if (error) return error;
  }
  return nullptr;
}

// Where the streams of a group meet: the last to arrive runs the group, the
// others wait for it to end.
class GroupGate {
 public:
  GroupGate(std::vector<Batch> batches, size_t arrivals)
      : batches_(std::move(batches)), waiting_(arrivals) {
    for (Batch& batch : batches_) batch.comm->begin_queued();
  }

  std::exception_ptr arrive() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--waiting_ > 0) {
      done_.wait(lock, [&] { return finished_; });
      return error_;
    }
    lock.unlock();
    std::exception_ptr error = run_batches(batches_);
    for (Batch& batch : batches_) batch.comm->end_queued();
    lock.lock();
    error_ = error;
    finished_ = true;
    done_.notify_all();
    return error_;
  }

 private:
  std::vector<Batch> batches_;
  std::mutex mutex_;
  std::condition_variable done_;
  size_t waiting_;
  bool finished_ = false;
  std::exception_ptr error_;
};

}  // namespace

void launch_group(std::vector<IssuedOp> ops, CpuStream& default_stream) {
  if (ops.empty()) return;
  std::vector<std::shared_ptr<CpuStream>> streams;
  bool synchronous = false;
  for (const IssuedOp& issued : ops) {
    if (issued.stream == nullptr) {
      synchronous = true;
    } else if (std::find(streams.begin(), streams.end(), issued.stream) == streams.end()) {
      streams.push_back(issued.stream);
    }
  }
  auto gate = std::make_shared<GroupGate>(batches_of(ops), streams.size() + (synchronous ? 1 : 0));
  for (const std::shared_ptr<CpuStream>& stream : streams) {
    stream->submit_task([gate] { gate->arrive(); });
  }
  if (!synchronous) return;
  default_stream.synchronize();
  if (std::exception_ptr error = gate->arrive()) std::rethrow_exception(error);
}

}  // namespace omnirt::cpu
