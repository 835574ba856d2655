// A file descriptor closed when its owner goes away.
#ifndef OMNIRT_CORE_VETTING_UNIQUE_FD_H_
#define OMNIRT_CORE_VETTING_UNIQUE_FD_H_

#include <unistd.h>

#include <utility>

namespace omnirt::vetting {

class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  void reset() noexcept {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace omnirt::vetting

#endif  // OMNIRT_CORE_VETTING_UNIQUE_FD_H_
