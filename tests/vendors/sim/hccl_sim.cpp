// A simulated HCCL: libhccl.so exporting the entry points the ascend backend
// binds, with their documented signatures (declared from the backend's own
// OMNIRT_HCCL_SYMBOLS list) and codes, running on the simulated AscendCL's
// streams (collective_sim.h): ranks are communicators of this process, which
// meet through a root info carrying a group id.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "collective_sim.h"
#include "sim_enqueue.h"  // OMNIRT_SIM_EXPORT
#include "hccl_api.h"

using namespace omnirt::ascend;  // NOLINT: the vendor's spellings, as a client sees them
using omnirt::sim::Element;
using omnirt::sim::Failure;
using omnirt::sim::Kind;
using omnirt::sim::Part;
using omnirt::sim::Rank;
using omnirt::sim::Reduction;

#define SIM_DECLARE(name, ret, params) extern "C" OMNIRT_SIM_EXPORT ret name params;
#define SIM_DECLARE_OPTIONAL(features, name, ret, params) SIM_DECLARE(name, ret, params)
OMNIRT_HCCL_SYMBOLS(SIM_DECLARE, SIM_DECLARE_OPTIONAL)

namespace {

constexpr char kMagic[] = "omnirt-sim-hccl";  // the root info: magic, then the group id

struct SimComm {
  std::shared_ptr<Rank> rank;
};

SimComm* comm_of(HcclComm comm) { return static_cast<SimComm*>(comm); }

bool element_of(HcclDataType type, Element* element) {
  switch (type) {
    case HCCL_DATA_TYPE_INT8: *element = Element::kI8; return true;
    case HCCL_DATA_TYPE_INT16: *element = Element::kI16; return true;
    case HCCL_DATA_TYPE_INT32: *element = Element::kI32; return true;
    case HCCL_DATA_TYPE_INT64: *element = Element::kI64; return true;
    case HCCL_DATA_TYPE_UINT8: *element = Element::kU8; return true;
    case HCCL_DATA_TYPE_UINT16: *element = Element::kU16; return true;
    case HCCL_DATA_TYPE_UINT32: *element = Element::kU32; return true;
    case HCCL_DATA_TYPE_UINT64: *element = Element::kU64; return true;
    case HCCL_DATA_TYPE_FP16: *element = Element::kF16; return true;
    case HCCL_DATA_TYPE_BFP16: *element = Element::kBF16; return true;
    case HCCL_DATA_TYPE_FP32: *element = Element::kF32; return true;
    case HCCL_DATA_TYPE_FP64: *element = Element::kF64; return true;
  }
  return false;
}

// HCCL_CONNECT_TIMEOUT, in seconds as HCCL reads it (default 120).
std::chrono::milliseconds connect_timeout() {
  const char* value = std::getenv("HCCL_CONNECT_TIMEOUT");
  return std::chrono::seconds(value != nullptr ? std::strtol(value, nullptr, 10) : 120);
}

HcclResult submit(HcclComm comm, Kind kind, const void* send, void* recv, uint64_t count, HcclDataType type,
                  HcclReduceOp op, int peer, aclrtStream stream) {
  Element element;
  if (comm == nullptr) return HCCL_E_PTR;
  if (!element_of(type, &element) || op < HCCL_REDUCE_SUM || op > HCCL_REDUCE_MIN) return HCCL_E_PARA;
  const Part part{kind, send, recv, count, element, static_cast<Reduction>(op), peer};
  switch (omnirt::sim::check(part, comm_of(comm)->rank->nranks())) {
    case omnirt::sim::Refusal::kNullPointer: return HCCL_E_PTR;
    case omnirt::sim::Refusal::kBadArgument: return HCCL_E_PARA;
    default: break;
  }
  return omnirt::sim::launch(stream, comm_of(comm)->rank->issue(part)) ? HCCL_SUCCESS : HCCL_E_RUNTIME;
}

}  // namespace

HcclResult HcclGetRootInfo(HcclRootInfo* rootInfo) {
  if (rootInfo == nullptr) return HCCL_E_PTR;
  std::memset(rootInfo->internal, 0, sizeof rootInfo->internal);
  std::memcpy(rootInfo->internal, kMagic, sizeof kMagic);
  const uint64_t id = Rank::new_group_id();
  std::memcpy(rootInfo->internal + sizeof kMagic, &id, sizeof id);
  return HCCL_SUCCESS;
}

HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank, HcclComm* comm) {
  if (rootInfo == nullptr || comm == nullptr) return HCCL_E_PTR;
  if (std::memcmp(rootInfo->internal, kMagic, sizeof kMagic) != 0 || rank >= nRanks) return HCCL_E_PARA;
  uint64_t id = 0;
  std::memcpy(&id, rootInfo->internal + sizeof kMagic, sizeof id);
  std::shared_ptr<Rank> joined = Rank::join(id, int(rank), int(nRanks), connect_timeout());
  if (joined == nullptr) return HCCL_E_TIMEOUT;
  *comm = new SimComm{std::move(joined)};
  return HCCL_SUCCESS;
}

HcclResult HcclCommInitAll(uint32_t ndev, int32_t* devices, HcclComm* comms) {
  if (devices == nullptr || comms == nullptr) return HCCL_E_PTR;
  if (ndev == 0) return HCCL_E_PARA;
  auto ranks = Rank::make_all(int(ndev));
  for (uint32_t i = 0; i < ndev; ++i) comms[i] = new SimComm{ranks[i]};
  return HCCL_SUCCESS;
}

HcclResult HcclCommDestroy(HcclComm comm) {
  if (comm == nullptr) return HCCL_E_PTR;
  delete comm_of(comm);  // work still queued holds its rank
  return HCCL_SUCCESS;
}

HcclResult HcclAllReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                         HcclComm comm, aclrtStream stream) {
  return submit(comm, Kind::kAllReduce, sendBuf, recvBuf, count, dataType, op, -1, stream);
}

HcclResult HcclAllGather(void* sendBuf, void* recvBuf, uint64_t sendCount, HcclDataType dataType, HcclComm comm,
                         aclrtStream stream) {
  return submit(comm, Kind::kAllGather, sendBuf, recvBuf, sendCount, dataType, HCCL_REDUCE_SUM, -1, stream);
}

HcclResult HcclReduceScatter(void* sendBuf, void* recvBuf, uint64_t recvCount, HcclDataType dataType,
                             HcclReduceOp op, HcclComm comm, aclrtStream stream) {
  return submit(comm, Kind::kReduceScatter, sendBuf, recvBuf, recvCount, dataType, op, -1, stream);
}

HcclResult HcclBroadcast(void* buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                         aclrtStream stream) {
  return submit(comm, Kind::kBroadcast, buf, buf, count, dataType, HCCL_REDUCE_SUM, int(root), stream);
}

HcclResult HcclSend(void* sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                    aclrtStream stream) {
  return submit(comm, Kind::kSend, sendBuf, nullptr, count, dataType, HCCL_REDUCE_SUM, int(destRank), stream);
}

HcclResult HcclRecv(void* recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                    aclrtStream stream) {
  return submit(comm, Kind::kRecv, nullptr, recvBuf, count, dataType, HCCL_REDUCE_SUM, int(srcRank), stream);
}

const char* HcclGetErrorString(HcclResult code) {
  switch (code) {
    case HCCL_SUCCESS: return "success";
    case HCCL_E_PARA: return "[simulated HCCL] parameter error (or the ranks disagree on a collective)";
    case HCCL_E_PTR: return "[simulated HCCL] empty pointer";
    case HCCL_E_TIMEOUT: return "[simulated HCCL] timeout: a rank did not join";
    default: return "[simulated HCCL] error";
  }
}

HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult* asyncError) {
  if (comm == nullptr || asyncError == nullptr) return HCCL_E_PTR;
  switch (comm_of(comm)->rank->async_error()) {
    case Failure::kTimeout: *asyncError = HCCL_E_TIMEOUT; break;
    case Failure::kMismatch: *asyncError = HCCL_E_PARA; break;
    default: *asyncError = HCCL_SUCCESS; break;
  }
  return HCCL_SUCCESS;
}

// Held until the group's end, then launched as one task per stream (collective_sim.h).
HcclResult HcclGroupStart() {
  omnirt::sim::group_start();
  return HCCL_SUCCESS;
}

HcclResult HcclGroupEnd() { return omnirt::sim::group_end() ? HCCL_SUCCESS : HCCL_E_PARA; }
