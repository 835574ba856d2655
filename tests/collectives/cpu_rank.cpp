#include "cpu_rank.h"

namespace omnirt_test {

CpuRank::~CpuRank() {
  omnirt_comm_destroy(backend_.get(), comm_);
  omnirt_file_store_destroy(store_);  // after the communicator, which uses it
}

std::string failure(const std::string& call, omnirt_status status) {
  return call + " failed: " + omnirt_status_name(status) + ": " + omnirt_last_error()->message;
}

std::string CpuRank::open_backend() {
  omnirt_status status = host_.create({OMNIRT_TEST_CPU_PLUGIN},
                                      OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR,
                                      OMNIRT_TEST_CPU_CONFIG);
  if (status != OMNIRT_STATUS_OK) return failure("omnirt_host_create", status);
  status = host_.backend("cpu", &backend_);
  return status == OMNIRT_STATUS_OK ? "" : failure("omnirt_host_get_backend", status);
}

std::string CpuRank::open(const std::string& store_dir, int rank, int nranks, uint32_t timeout_ms,
                          const std::string& key_prefix) {
  rank_ = rank;
  nranks_ = nranks;
  std::string why = open_backend();
  if (!why.empty()) return why;
  omnirt_status status = omnirt_file_store_create(store_dir.c_str(), &store_);
  if (status != OMNIRT_STATUS_OK) return failure("omnirt_file_store_create", status);
  omnirt_comm_create_args args{};
  args.struct_size = sizeof args;
  args.nranks = nranks;
  args.rank = rank;
  args.device = 0;
  args.timeout_ms = timeout_ms;
  args.store = store_;
  args.key_prefix = key_prefix.c_str();
  status = omnirt_comm_create(backend(), &args, &comm_);
  return status == OMNIRT_STATUS_OK ? "" : failure("omnirt_comm_create", status);
}

}  // namespace omnirt_test
