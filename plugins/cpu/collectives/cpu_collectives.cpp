#include "cpu_collectives.h"

#include <optional>
#include <utility>
#include <vector>

#include "cpu_group.h"
#include "omnirt_plugin_common/thread_groups.h"

namespace omnirt::cpu {
namespace {

constexpr size_t kMessageCapacity = 2048;

using Groups = plugin_common::ThreadGroups<IssuedOp>;

}  // namespace

CpuCollectives::CpuCollectives(const plugin::Options& options,
                               std::shared_ptr<CpuStream> default_stream)
    : hostname_(options.get("gloo_hostname")), default_stream_(std::move(default_stream)) {}

CpuCollectives::~CpuCollectives() {
  for (const std::shared_ptr<CpuComm>& comm : comms_.take_all()) comm->wait_idle();
}

void CpuCollectives::describe(omnirt_capabilities& caps) const {
  if (library_.usable()) caps.features |= OMNIRT_FEATURE_COLLECTIVES;
}

std::string CpuCollectives::library() { return gloo().library_version; }

omnirt_comm* CpuCollectives::create(const omnirt_comm_create_args& args) {
  const omnirt_cpu_gloo_api& api = gloo();
  omnirt_cpu_gloo_comm* made = nullptr;
  char message[kMessageCapacity] = "";
  const omnirt_status status = api.comm_create(&args, hostname_.c_str(), &made, message, sizeof message);
  if (status != OMNIRT_STATUS_OK) plugin::fail(status, message);
  return comms_.add(std::make_shared<CpuComm>(api, made, args.rank, args.nranks));
}

void CpuCollectives::create_local(size_t num_ranks, omnirt_comm** comms) {
  const omnirt_cpu_gloo_api& api = gloo();
  const auto nranks = static_cast<int32_t>(num_ranks);
  std::vector<omnirt_cpu_gloo_comm*> made(num_ranks, nullptr);
  char message[kMessageCapacity] = "";
  const omnirt_status status = api.comm_create_local(nranks, made.data(), message, sizeof message);
  if (status != OMNIRT_STATUS_OK) plugin::fail(status, message);
  // Owned from here on, so that a failure below frees them all.
  std::vector<std::shared_ptr<CpuComm>> owned;
  for (int32_t rank = 0; rank < nranks; ++rank) {
    owned.push_back(std::make_shared<CpuComm>(api, made[size_t(rank)], rank, nranks));
  }
  for (size_t i = 0; i < num_ranks; ++i) comms[i] = comms_.add(owned[i]);
}

void CpuCollectives::destroy(omnirt_comm* comm) {
  if (comm == nullptr) return;
  comms_.remove(comm)->wait_idle();
}

void CpuCollectives::throw_if_failed(omnirt_comm* comm) { comms_.find(comm)->throw_if_failed(); }

void CpuCollectives::submit(omnirt_comm* handle, const plugin_common::Collective& c,
                            const std::shared_ptr<CpuStream>& stream) {
  std::shared_ptr<CpuComm> comm = comms_.find(handle);
  if (stream != nullptr && stream->capturing()) {
    plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED,
                 std::string("cpu: ") + plugin_common::collective_name(c.kind) +
                     " on a capturing stream is not supported (a replay would repeat its number)");
  }
  const omnirt_cpu_gloo_op op = comm->issue(c);
  if (std::vector<IssuedOp>* group = Groups::entries(this)) {
    group->push_back({std::move(comm), op, stream});
    return;
  }
  if (stream == nullptr) {
    default_stream_->synchronize();
    comm->run(&op, 1);
    return;
  }
  comm->begin_queued();
  stream->submit_task([comm, op] {
    try {
      comm->run(&op, 1);
    } catch (...) {  // kept by the communicator: comm_get_async_error reports it
    }
    comm->end_queued();
  });
}

void CpuCollectives::group_start() { Groups::start(this); }

void CpuCollectives::group_end() {
  if (std::optional<std::vector<IssuedOp>> ops = Groups::end(this, "cpu")) {
    launch_group(std::move(*ops), *default_stream_);
  }
}

}  // namespace omnirt::cpu
