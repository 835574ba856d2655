// The part of HCCL, Huawei's collective communication library
// (libhccl.so, CANN), the ascend backend binds for collectives, declared from
// its public API reference (hccl.h, hccl_types.h); no vendor header is needed
// to build. Spellings follow the vendor's so each line can be checked against
// its documentation.
//
// OMNIRT_HCCL_SYMBOLS is the X-macro list of entry points; the simulated HCCL
// in tests/vendors/sim declares its exports from the same list. The OPTIONAL
// ones came with later CANN releases: without them, groups are NOT_SUPPORTED
// and asynchronous errors are not known.
#ifndef OMNIRT_PLUGINS_ASCEND_HCCL_API_H_
#define OMNIRT_PLUGINS_ASCEND_HCCL_API_H_

#include <cstdint>

#include "acl_api.h"  // aclrtStream

namespace omnirt::ascend {

enum HcclResult : int {
  HCCL_SUCCESS = 0,
  HCCL_E_PARA = 1,
  HCCL_E_PTR = 2,
  HCCL_E_MEMORY = 3,
  HCCL_E_INTERNAL = 4,
  HCCL_E_NOT_SUPPORT = 5,
  HCCL_E_NOT_FOUND = 6,
  HCCL_E_UNAVAIL = 7,
  HCCL_E_SYSCALL = 8,
  HCCL_E_TIMEOUT = 9,
  HCCL_E_OPEN_FILE_FAILURE = 10,
  HCCL_E_TCP_CONNECT = 11,
  HCCL_E_ROCE_CONNECT = 12,
  HCCL_E_TCP_TRANSFER = 13,
  HCCL_E_ROCE_TRANSFER = 14,
  HCCL_E_RUNTIME = 15,
  HCCL_E_DRV = 16,
  HCCL_E_PROFILING = 17,
  HCCL_E_CCE = 18,
  HCCL_E_NETWORK = 19,
  HCCL_E_AGAIN = 20,
  HCCL_E_REMOTE = 21,
};

using HcclComm = void*;

enum HcclReduceOp : int {
  HCCL_REDUCE_SUM = 0,
  HCCL_REDUCE_PROD = 1,
  HCCL_REDUCE_MAX = 2,
  HCCL_REDUCE_MIN = 3,
};

enum HcclDataType : int {
  HCCL_DATA_TYPE_INT8 = 0,
  HCCL_DATA_TYPE_INT16 = 1,
  HCCL_DATA_TYPE_INT32 = 2,
  HCCL_DATA_TYPE_FP16 = 3,
  HCCL_DATA_TYPE_FP32 = 4,
  HCCL_DATA_TYPE_INT64 = 5,
  HCCL_DATA_TYPE_UINT64 = 6,
  HCCL_DATA_TYPE_UINT8 = 7,
  HCCL_DATA_TYPE_UINT16 = 8,
  HCCL_DATA_TYPE_UINT32 = 9,
  HCCL_DATA_TYPE_FP64 = 10,
  HCCL_DATA_TYPE_BFP16 = 11,
};

constexpr uint32_t kHcclRootInfoBytes = 4108;  // HCCL_ROOT_INFO_BYTES
struct HcclRootInfo {
  char internal[kHcclRootInfoBytes];
};

// clang-format off
// REQUIRED(name, return type, (parameters)); OPTIONAL(features, name, ...).
#define OMNIRT_HCCL_SYMBOLS(REQUIRED, OPTIONAL)                                                    \
  REQUIRED(HcclGetRootInfo, HcclResult, (HcclRootInfo* rootInfo))                                  \
  REQUIRED(HcclCommInitRootInfo, HcclResult,                                                       \
           (uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank, HcclComm* comm))         \
  REQUIRED(HcclCommInitAll, HcclResult, (uint32_t ndev, int32_t* devices, HcclComm* comms))        \
  REQUIRED(HcclCommDestroy, HcclResult, (HcclComm comm))                                           \
  REQUIRED(HcclAllReduce, HcclResult,                                                              \
           (void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,  \
            HcclComm comm, aclrtStream stream))                                                    \
  REQUIRED(HcclAllGather, HcclResult,                                                              \
           (void* sendBuf, void* recvBuf, uint64_t sendCount, HcclDataType dataType,               \
            HcclComm comm, aclrtStream stream))                                                    \
  REQUIRED(HcclReduceScatter, HcclResult,                                                          \
           (void* sendBuf, void* recvBuf, uint64_t recvCount, HcclDataType dataType,               \
            HcclReduceOp op, HcclComm comm, aclrtStream stream))                                   \
  REQUIRED(HcclBroadcast, HcclResult,                                                              \
           (void* buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,        \
            aclrtStream stream))                                                                   \
  REQUIRED(HcclSend, HcclResult,                                                                   \
           (void* sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,               \
            HcclComm comm, aclrtStream stream))                                                    \
  REQUIRED(HcclRecv, HcclResult,                                                                   \
           (void* recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,                \
            HcclComm comm, aclrtStream stream))                                                    \
  OPTIONAL(0, HcclGetErrorString, const char*, (HcclResult code))                                  \
  OPTIONAL(0, HcclGetCommAsyncError, HcclResult, (HcclComm comm, HcclResult* asyncError))          \
  OPTIONAL(0, HcclGroupStart, HcclResult, ())                                                      \
  OPTIONAL(0, HcclGroupEnd, HcclResult, ())
// clang-format on

}  // namespace omnirt::ascend

#endif  // OMNIRT_PLUGINS_ASCEND_HCCL_API_H_
