// A simulated CNCL: libcncl.so exporting the entry points the cambricon
// backend binds, with their documented signatures (declared from the
// backend's own OMNIRT_CNCL_SYMBOLS list) and codes, running on the simulated
// CNRT's queues (collective_sim.h): ranks are communicators of this process,
// which meet through a clique id carrying a group id.
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cncl_api.h"
#include "collective_sim.h"
#include "sim_enqueue.h"  // OMNIRT_SIM_EXPORT

using namespace omnirt::cambricon;  // NOLINT: the vendor's spellings, as a client sees them
using omnirt::sim::Element;
using omnirt::sim::Failure;
using omnirt::sim::Kind;
using omnirt::sim::Part;
using omnirt::sim::Rank;
using omnirt::sim::Reduction;

#define SIM_DECLARE(name, ret, params) extern "C" OMNIRT_SIM_EXPORT ret name params;
#define SIM_DECLARE_OPTIONAL(features, name, ret, params) SIM_DECLARE(name, ret, params)
OMNIRT_CNCL_SYMBOLS(SIM_DECLARE, SIM_DECLARE_OPTIONAL)

// The handle behind cnclComm_t.
struct omnirt::cambricon::cnclComm {
  std::shared_ptr<Rank> rank;
};

namespace {

constexpr char kMagic[] = "omnirt-sim-cncl";  // the clique id: magic, then the group id

bool element_of(cnclDataType_t type, Element* element) {
  switch (type) {
    case cnclInt8: *element = Element::kI8; return true;
    case cnclInt16: *element = Element::kI16; return true;
    case cnclInt32: *element = Element::kI32; return true;
    case cnclInt64: *element = Element::kI64; return true;
    case cnclUint8: *element = Element::kU8; return true;
    case cnclUint16: *element = Element::kU16; return true;
    case cnclUint32: *element = Element::kU32; return true;
    case cnclUint64: *element = Element::kU64; return true;
    case cnclFloat16: *element = Element::kF16; return true;
    case cnclBfloat16: *element = Element::kBF16; return true;
    case cnclFloat32: *element = Element::kF32; return true;
  }
  return false;
}

cnclResult_t submit(cnclComm_t comm, Kind kind, const void* send, void* recv, size_t count, cnclDataType_t type,
                    cnclReduceOp_t op, int peer, cnrtQueue_t queue) {
  Element element;
  if (comm == nullptr) return CNCL_RET_ERR_NULL_POINTER;
  if (!element_of(type, &element) || op < cnclSum || op > cnclMin) return CNCL_RET_ERR_ARGUMENTS;
  const Part part{kind, send, recv, count, element, static_cast<Reduction>(op), peer};
  switch (omnirt::sim::check(part, comm->rank->nranks())) {
    case omnirt::sim::Refusal::kNullPointer: return CNCL_RET_ERR_NULL_POINTER;
    case omnirt::sim::Refusal::kBadArgument: return CNCL_RET_ERR_ARGUMENTS;
    default: break;
  }
  return omnirt::sim::launch(queue, comm->rank->issue(part)) ? CNCL_RET_SUCCESS : CNCL_RET_ERR_MLU_RUNTIME;
}

}  // namespace

cnclResult_t cnclGetCliqueId(cnclCliqueId_t clique_id) {
  if (clique_id == nullptr) return CNCL_RET_ERR_NULL_POINTER;
  std::memset(clique_id, 0, sizeof *clique_id);
  std::memcpy(clique_id->data, kMagic, sizeof kMagic);
  clique_id->hash = Rank::new_group_id();
  std::memcpy(clique_id->data + sizeof kMagic, &clique_id->hash, sizeof clique_id->hash);
  return CNCL_RET_SUCCESS;
}

// Without a clique id the communicators are those of one new group, made at
// once; with one, each joins the group (in a thread of its own, since joining
// waits for every rank).
cnclResult_t cnclInitComms(cnclComm_t* comms, int num_comm, const int* dev_list, const int* rank_list, int nrank,
                           const cnclCliqueId_t clique_id) {
  if (comms == nullptr || dev_list == nullptr || rank_list == nullptr) return CNCL_RET_ERR_NULL_POINTER;
  if (num_comm <= 0 || num_comm > nrank) return CNCL_RET_ERR_ARGUMENTS;
  for (int i = 0; i < num_comm; ++i) {
    if (rank_list[i] < 0 || rank_list[i] >= nrank) return CNCL_RET_ERR_ARGUMENTS;
  }
  std::vector<std::shared_ptr<Rank>> ranks(size_t(num_comm), nullptr);
  if (clique_id == nullptr) {
    if (num_comm != nrank) return CNCL_RET_ERR_ARGUMENTS;  // one process holds the whole clique
    auto all = Rank::make_all(nrank);
    for (int i = 0; i < num_comm; ++i) ranks[size_t(i)] = all[size_t(rank_list[i])];
  } else {
    if (std::memcmp(clique_id->data, kMagic, sizeof kMagic) != 0) return CNCL_RET_ERR_ARGUMENTS;
    std::vector<std::thread> joiners;
    for (int i = 0; i < num_comm; ++i) {
      joiners.emplace_back([&, i] { ranks[size_t(i)] = Rank::join(clique_id->hash, rank_list[i], nrank, omnirt::sim::collective_timeout()); });
    }
    for (std::thread& t : joiners) t.join();
    for (const auto& rank : ranks) {
      if (rank == nullptr) return CNCL_RET_ERR_INIT;
    }
  }
  for (int i = 0; i < num_comm; ++i) comms[i] = new cnclComm{ranks[size_t(i)]};
  return CNCL_RET_SUCCESS;
}

cnclResult_t cnclFreeComm(cnclComm_t comm) {
  if (comm == nullptr) return CNCL_RET_ERR_NULL_POINTER;
  delete comm;  // work still queued holds its rank
  return CNCL_RET_SUCCESS;
}

cnclResult_t cnclAllReduce(const void* send_buffer, void* recv_buffer, size_t count, cnclDataType_t data_type,
                           cnclReduceOp_t reduce_op, cnclComm_t comm, cnrtQueue_t queue) {
  return submit(comm, Kind::kAllReduce, send_buffer, recv_buffer, count, data_type, reduce_op, -1, queue);
}

cnclResult_t cnclAllGather(const void* send_buffer, void* recv_buffer, size_t count, cnclDataType_t data_type,
                           cnclComm_t comm, cnrtQueue_t queue) {
  return submit(comm, Kind::kAllGather, send_buffer, recv_buffer, count, data_type, cnclSum, -1, queue);
}

cnclResult_t cnclReduceScatter(const void* send_buffer, void* recv_buffer, size_t count, cnclDataType_t data_type,
                               cnclReduceOp_t reduce_op, cnclComm_t comm, cnrtQueue_t queue) {
  return submit(comm, Kind::kReduceScatter, send_buffer, recv_buffer, count, data_type, reduce_op, -1, queue);
}

cnclResult_t cnclBroadcast(const void* send_buffer, void* recv_buffer, size_t count, cnclDataType_t data_type,
                           int root, cnclComm_t comm, cnrtQueue_t queue) {
  return submit(comm, Kind::kBroadcast, send_buffer, recv_buffer, count, data_type, cnclSum, root, queue);
}

cnclResult_t cnclSend(void* buffer, const size_t count, cnclDataType_t data_type, const int dest,
                      const cnclComm_t comm, cnrtQueue_t queue) {
  return submit(comm, Kind::kSend, buffer, nullptr, count, data_type, cnclSum, dest, queue);
}

cnclResult_t cnclRecv(void* buffer, const size_t count, cnclDataType_t data_type, const int source,
                      const cnclComm_t comm, cnrtQueue_t queue) {
  return submit(comm, Kind::kRecv, nullptr, buffer, count, data_type, cnclSum, source, queue);
}

const char* cnclGetErrorStr(cnclResult_t ret) {
  switch (ret) {
    case CNCL_RET_SUCCESS: return "success";
    case CNCL_RET_ASYNC_ERROR: return "[simulated CNCL] asynchronous error: a rank did not join, or the ranks disagree";
    case CNCL_RET_ERR_ARGUMENTS: return "[simulated CNCL] illegal arguments";
    case CNCL_RET_ERR_INIT: return "[simulated CNCL] the clique did not gather in time";
    default: return "[simulated CNCL] error";
  }
}

cnclResult_t cnclGetCommAsyncError(const cnclComm_t comm) {
  if (comm == nullptr) return CNCL_RET_ERR_ARGUMENTS;
  return comm->rank->async_error() == Failure::kNone ? CNCL_RET_SUCCESS : CNCL_RET_ASYNC_ERROR;
}

cnclResult_t cnclGetLibVersion(int* major, int* minor, int* patch) {
  if (major == nullptr || minor == nullptr || patch == nullptr) return CNCL_RET_ERR_NULL_POINTER;
  *major = 1;
  *minor = 25;
  *patch = 0;
  return CNCL_RET_SUCCESS;
}

// Held until the group's end, then launched as one task per queue (collective_sim.h).
cnclResult_t cnclGroupStart() {
  omnirt::sim::group_start();
  return CNCL_RET_SUCCESS;
}

cnclResult_t cnclGroupEnd() { return omnirt::sim::group_end() ? CNCL_RET_SUCCESS : CNCL_RET_ERR_ARGUMENTS; }
