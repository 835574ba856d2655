#include "gloo_comm.h"

#include <gloo/rendezvous/context.h>

#include <algorithm>
#include <exception>
#include <utility>
#include <vector>

#include "kv_store_adapter.h"
#include "omnirt_plugin_common/collectives.h"

namespace omnirt::cpu::gloo_lib {
namespace {

using plugin_common::Collective;
using plugin_common::CollectiveKind;
using std::chrono::milliseconds;

bool is_transfer(const omnirt_cpu_gloo_op& op) {
  return op.kind == int32_t(CollectiveKind::kSend) || op.kind == int32_t(CollectiveKind::kRecv);
}

Collective collective_of(const omnirt_cpu_gloo_op& op) {
  Collective c;
  c.kind = CollectiveKind(op.kind);
  c.count = op.count;
  c.dtype = op.dtype;
  c.op = op.reduce_op;
  c.peer = op.peer;
  return c;
}

// What the ranks meeting in `op` must agree on, hashed (FNV-1a) into gloo's
// 32-bit tag. A send and its receive agree on sequence, count and dtype.
uint32_t tag_of(const omnirt_cpu_gloo_op& op) {
  uint64_t words[6] = {op.sequence, uint64_t(op.count), uint64_t(uint32_t(op.dtype)), 0, 0, 0};
  if (!is_transfer(op)) {
    words[3] = uint64_t(uint32_t(op.kind)) + 1;
    const Collective c = collective_of(op);
    if (c.reduces()) words[4] = uint64_t(uint32_t(op.reduce_op));
    if (c.kind == CollectiveKind::kBroadcast) words[5] = uint64_t(uint32_t(op.peer));
  }
  uint64_t hash = 0xcbf29ce484222325ull;
  for (uint64_t word : words) {
    for (int byte = 0; byte < 8; ++byte) {
      hash = (hash ^ ((word >> (8 * byte)) & 0xff)) * 0x100000001b3ull;
    }
  }
  return uint32_t(hash ^ (hash >> 32));
}

// The failure report's share of the time limit: a tenth, between 100 ms (or
// half of a smaller limit) and 5 s.
milliseconds grace_of(uint32_t timeout_ms) {
  const uint32_t floor = std::min<uint32_t>(100, timeout_ms / 2);
  return milliseconds(std::clamp<uint32_t>(timeout_ms / 10, floor, 5000));
}

std::string failed_key(uint64_t sequence, int32_t rank) {
  return "omnirt/failed/" + std::to_string(sequence) + "/" + std::to_string(rank);
}

}  // namespace

GlooComm::GlooComm(std::shared_ptr<gloo::transport::Device> device,
                   const omnirt_kv_store& store, const std::string& prefix, int32_t rank,
                   int32_t nranks, uint32_t timeout_ms, std::shared_ptr<LocalStore> local_store)
    : local_store_(std::move(local_store)),
      rendezvous_("cpu", store, prefix, rank, nranks, timeout_ms),
      grace_(grace_of(timeout_ms)),
      op_timeout_(milliseconds(timeout_ms) - grace_) {
  rendezvous_.arrive();
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, nranks);
  context->setTimeout(milliseconds(std::max<uint32_t>(1, rendezvous_.remaining_ms())));
  KvStoreAdapter adapter(rendezvous_);
  try {
    context->connectFullMesh(adapter, device);
  } catch (const plugin::Error&) {
    throw;
  } catch (const std::exception& e) {
    plugin::fail(OMNIRT_STATUS_TIMEOUT,
                 "cpu: rank " + std::to_string(rank) + " could not connect to the other " +
                     std::to_string(nranks - 1) + " rank(s) within " + std::to_string(timeout_ms) +
                     " ms: " + e.what());
  }
  context->setTimeout(op_timeout_);
  context_ = std::move(context);
}

GlooComm::~GlooComm() = default;

void GlooComm::throw_if_failed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failure_ != OMNIRT_STATUS_OK) throw plugin::Error(failure_, failure_message_);
}

void GlooComm::run(const omnirt_cpu_gloo_op* ops, size_t num_ops) {
  throw_if_failed();
  const Clock::time_point started = Clock::now();
  std::vector<std::pair<const omnirt_cpu_gloo_op*, Transfer>> transfers;
  const omnirt_cpu_gloo_op* current = nullptr;
  try {
    for (size_t i = 0; i < num_ops; ++i) {
      current = &ops[i];
      if (current->count == 0) continue;  // every rank skips it alike: nothing moves
      if (is_transfer(*current)) {
        transfers.emplace_back(current, start_transfer(context_, *current, tag_of(*current)));
      } else {
        run_collective(*current, tag_of(*current));
      }
    }
    for (auto& [op, transfer] : transfers) {
      current = op;
      transfer.wait(op_timeout_);
    }
  } catch (const std::exception& e) {
    fail(*current, e.what(), started);
  }
}

void GlooComm::run_collective(const omnirt_cpu_gloo_op& op, uint32_t tag) {
  switch (CollectiveKind(op.kind)) {
    case CollectiveKind::kAllReduce: return all_reduce(context_, op, tag, op_timeout_);
    case CollectiveKind::kAllGather: return all_gather(context_, op, tag, op_timeout_);
    case CollectiveKind::kReduceScatter: return reduce_scatter(context_, op, tag, op_timeout_);
    case CollectiveKind::kBroadcast: return broadcast(context_, op, tag, op_timeout_);
    default:
      plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, "cpu: unknown operation " + std::to_string(op.kind));
  }
}

void GlooComm::fail(const omnirt_cpu_gloo_op& op, const std::string& cause, Clock::time_point started) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_ != OMNIRT_STATUS_OK) throw plugin::Error(failure_, failure_message_);
  }
  // The peers waiting for us fail now, not at their time limit.
  try {
    context_->closeConnections();
  } catch (...) {
  }
  omnirt_status status = OMNIRT_STATUS_TIMEOUT;
  std::string message;
  try {
    if (is_transfer(op)) {
      message = diagnose_transfer(op, cause);
    } else {
      std::tie(status, message) = diagnose_collective(op, cause, started);
    }
  } catch (const std::exception& e) {  // the store failed too: report what we know
    message = "cpu: " + collective_of(op).describe() + " #" + std::to_string(op.sequence) +
              " failed (" + cause + "), and its failure report could not be exchanged: " + e.what();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (failure_ == OMNIRT_STATUS_OK) {
    failure_ = status;
    failure_message_ = std::move(message);
  }
  throw plugin::Error(failure_, failure_message_);
}

std::string GlooComm::diagnose_transfer(const omnirt_cpu_gloo_op& op, const std::string& cause) const {
  const bool sending = op.kind == int32_t(CollectiveKind::kSend);
  return "cpu: " + collective_of(op).describe() + " #" + std::to_string(op.sequence) +
         " failed: rank " + std::to_string(op.peer) + " did not " +
         (sending ? "receive it" : "send it") + " (with this count and dtype) within " +
         std::to_string(op_timeout_.count()) + " ms, or left (gloo: " + cause + ")";
}

std::pair<omnirt_status, std::string> GlooComm::diagnose_collective(const omnirt_cpu_gloo_op& op,
                                                                   const std::string& cause,
                                                                   Clock::time_point started) const {
  const std::string mine = collective_of(op).describe();
  rendezvous_.put(failed_key(op.sequence, rendezvous_.rank()), mine.data(), mine.size());
  std::vector<std::string> keys;
  for (int32_t r = 0; r < rendezvous_.nranks(); ++r) keys.push_back(failed_key(op.sequence, r));
  // The others' reports are awaited until the run's time limit (at least the
  // grace): a fast failure (a peer killed, its connection reset) reaches the
  // live ranks at different times, and one slow to report is not missing.
  const auto until_limit = std::chrono::duration_cast<milliseconds>(started + op_timeout_ + grace_ - Clock::now());
  rendezvous_.wait_keys(keys, uint32_t(std::max(grace_, until_limit).count()));

  std::vector<int32_t> missing;
  std::string disagreement;
  std::vector<char> report;
  for (int32_t r = 0; r < rendezvous_.nranks(); ++r) {
    if (!rendezvous_.try_get(keys[size_t(r)], 0, &report)) {
      missing.push_back(r);
    } else if (std::string(report.begin(), report.end()) != mine) {
      disagreement += "; rank " + std::to_string(r) + " called " +
                      std::string(report.begin(), report.end());
    }
  }
  const std::string what = "cpu: " + mine + " #" + std::to_string(op.sequence) + " on rank " +
                           std::to_string(rendezvous_.rank());
  if (!missing.empty()) {
    return {OMNIRT_STATUS_TIMEOUT,
            what + " failed: " + plugin_common::rank_list(missing) + " of " +
                std::to_string(rendezvous_.nranks()) + " did not join it (gone, or not there within " +
                std::to_string(op_timeout_.count()) + " ms)" +
                disagreement + " (gloo: " + cause + ")"};
  }
  if (!disagreement.empty()) {
    return {OMNIRT_STATUS_INVALID_ARGUMENT,
            what + ": the ranks disagree on this collective" + disagreement +
                "; every rank must call the same collectives with the same counts and dtypes"};
  }
  return {OMNIRT_STATUS_INTERNAL, what + " failed on every rank (gloo: " + cause + ")"};
}

}  // namespace omnirt::cpu::gloo_lib
