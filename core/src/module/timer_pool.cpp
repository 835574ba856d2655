#include "module/timer_pool.h"

namespace omnirt::wrap {

omnirt_status TimerPool::take(omnirt_backend* backend, int32_t device,
                              std::unique_ptr<CompletionTimer>* out) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      *out = std::move(idle_.back());
      idle_.pop_back();
      return OMNIRT_STATUS_OK;
    }
  }
  auto timer = std::make_unique<CompletionTimer>();
  const omnirt_status status = timer->init(backend, device);
  if (status == OMNIRT_STATUS_OK) *out = std::move(timer);
  return status;
}

void TimerPool::give_back(std::unique_ptr<CompletionTimer> timer) {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(timer));
}

}  // namespace omnirt::wrap
