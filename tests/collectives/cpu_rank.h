// One rank of a cpu-backend collectives test: a host over the cpu plugin
// (gloo on the loopback), its cpu backend, a file store and a communicator,
// released in the right order.
#ifndef OMNIRT_TESTS_COLLECTIVES_CPU_RANK_H_
#define OMNIRT_TESTS_COLLECTIVES_CPU_RANK_H_

#include <string>

#include "collectives_test_paths.h"
#include "omnirt/cpp/host.hpp"

namespace omnirt_test {

class CpuRank {
 public:
  CpuRank() = default;
  ~CpuRank();
  CpuRank(const CpuRank&) = delete;
  CpuRank& operator=(const CpuRank&) = delete;

  /// Opens the host and the cpu backend; "" or why not.
  std::string open_backend();
  /// open_backend(), then joins rank `rank` of `nranks` through a file store
  /// on `store_dir`; "" or why not (with omnirt_last_error's message).
  std::string open(const std::string& store_dir, int rank, int nranks, uint32_t timeout_ms,
                   const std::string& key_prefix = "");

  omnirt_backend* backend() const { return backend_.get(); }
  omnirt_comm* comm() const { return comm_; }
  int rank() const { return rank_; }
  int nranks() const { return nranks_; }

 private:
  omnirt::Host host_;
  omnirt::Backend backend_;
  omnirt_kv_store* store_ = nullptr;
  omnirt_comm* comm_ = nullptr;
  int rank_ = 0;
  int nranks_ = 1;
};

/// "<call> failed: <STATUS>: <message>" for a failed call.
std::string failure(const std::string& call, omnirt_status status);

}  // namespace omnirt_test

#endif  // OMNIRT_TESTS_COLLECTIVES_CPU_RANK_H_
