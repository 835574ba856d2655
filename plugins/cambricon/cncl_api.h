// The part of CNCL, Cambricon's collective communication library
// (libcncl.so, Neuware), the cambricon backend binds for collectives,
// declared from its public API reference (cncl.h); no vendor header is needed
// to build. Spellings follow the vendor's so each line can be checked against
// its documentation.
//
// OMNIRT_CNCL_SYMBOLS is the X-macro list of entry points; the simulated CNCL
// in tests/vendors/sim declares its exports from the same list. Without the
// OPTIONAL ones, groups are NOT_SUPPORTED, asynchronous errors are not known
// and the version is not reported.
#ifndef OMNIRT_PLUGINS_CAMBRICON_CNCL_API_H_
#define OMNIRT_PLUGINS_CAMBRICON_CNCL_API_H_

#include <cstddef>
#include <cstdint>

#include "cnrt_api.h"  // cnrtQueue_t

namespace omnirt::cambricon {

enum cnclResult_t : int {
  CNCL_RET_SUCCESS = 0x0,
  CNCL_RET_ERR_INTERNAL = 0x01,
  CNCL_RET_ERR_UNSUPPORTED = 0x11,
  CNCL_RET_ERR_NULL_POINTER = 0x21,
  CNCL_RET_ERR_INIT = 0x51,
  CNCL_RET_ERR_NOT_INIT = 0x61,
  CNCL_RET_ERR_REINIT = 0x71,
  CNCL_RET_ERR_SYSTEM = 0x02,
  CNCL_RET_ERR_SYS_MALLOC = 0x12,
  CNCL_RET_ERR_SYS_SOCKET = 0x22,
  CNCL_RET_ERR_MLU_RUNTIME = 0x03,
  CNCL_RET_ERR_CNRT_MALLOC = 0x33,
  CNCL_RET_ASYNC_IN_PROGRESS = 0x06,
  CNCL_RET_ASYNC_ERROR = 0x16,
  CNCL_RET_ERR_ARGUMENTS = 0x07,
};

enum cnclDataType_t : int {
  cnclFloat16 = 0x10,
  cnclBfloat16 = 0x11,
  cnclFloat32 = 0x12,
  cnclInt8 = 0x20,
  cnclInt16 = 0x21,
  cnclInt32 = 0x22,
  cnclInt64 = 0x23,
  cnclUint8 = 0x30,
  cnclUint16 = 0x31,
  cnclUint32 = 0x32,
  cnclUint64 = 0x33,
};

enum cnclReduceOp_t : int {
  cnclSum = 0,
  cnclProd = 1,
  cnclMax = 2,
  cnclMin = 3,
};

using cnclComm_t = struct cnclComm*;

constexpr size_t kCnclCliqueIdBytes = 128;  // CNCL_CLIQUE_ID_BYTES_SIZE
struct cnclCliqueId {
  char data[kCnclCliqueIdBytes];
  uint64_t hash;
};
using cnclCliqueId_t = cnclCliqueId*;

// clang-format off
// REQUIRED(name, return type, (parameters)); OPTIONAL(features, name, ...).
#define OMNIRT_CNCL_SYMBOLS(REQUIRED, OPTIONAL)                                                    \
  REQUIRED(cnclGetCliqueId, cnclResult_t, (cnclCliqueId_t clique_id))                              \
  REQUIRED(cnclInitComms, cnclResult_t,                                                            \
           (cnclComm_t* comms, int num_comm, const int* dev_list, const int* rank_list, int nrank, \
            const cnclCliqueId_t clique_id))                                                       \
  REQUIRED(cnclFreeComm, cnclResult_t, (cnclComm_t comm))                                          \
  REQUIRED(cnclAllReduce, cnclResult_t,                                                            \
           (const void* send_buffer, void* recv_buffer, size_t count, cnclDataType_t data_type,    \
            cnclReduceOp_t reduce_op, cnclComm_t comm, cnrtQueue_t queue))                         \
  REQUIRED(cnclAllGather, cnclResult_t,                                                            \
           (const void* send_buffer, void* recv_buffer, size_t count, cnclDataType_t data_type,    \
            cnclComm_t comm, cnrtQueue_t queue))                                                   \
  REQUIRED(cnclReduceScatter, cnclResult_t,                                                        \
           (const void* send_buffer, void* recv_buffer, size_t count, cnclDataType_t data_type,    \
            cnclReduceOp_t reduce_op, cnclComm_t comm, cnrtQueue_t queue))                         \
  REQUIRED(cnclBroadcast, cnclResult_t,                                                            \
           (const void* send_buffer, void* recv_buffer, size_t count, cnclDataType_t data_type,    \
            int root, cnclComm_t comm, cnrtQueue_t queue))                                         \
  REQUIRED(cnclSend, cnclResult_t,                                                                 \
           (void* buffer, const size_t count, cnclDataType_t data_type, const int dest,            \
            const cnclComm_t comm, cnrtQueue_t queue))                                             \
  REQUIRED(cnclRecv, cnclResult_t,                                                                 \
           (void* buffer, const size_t count, cnclDataType_t data_type, const int source,          \
            const cnclComm_t comm, cnrtQueue_t queue))                                             \
  OPTIONAL(0, cnclGetErrorStr, const char*, (cnclResult_t ret))                                    \
  OPTIONAL(0, cnclGetCommAsyncError, cnclResult_t, (const cnclComm_t comm))                        \
  OPTIONAL(0, cnclGetLibVersion, cnclResult_t, (int* major, int* minor, int* patch))               \
  OPTIONAL(0, cnclGroupStart, cnclResult_t, ())                                                    \
  OPTIONAL(0, cnclGroupEnd, cnclResult_t, ())
// clang-format on

}  // namespace omnirt::cambricon

#endif  // OMNIRT_PLUGINS_CAMBRICON_CNCL_API_H_
