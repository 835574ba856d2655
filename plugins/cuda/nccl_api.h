// The part of NCCL's C API (nccl.h) the cuda backend binds, declared here
// from NVIDIA's documented API so that no NCCL header is needed to build: the
// library is found and dlopened at run time (nccl_library.h). Spellings follow
// nccl.h, so each line can be checked against it.
//
// OMNIRT_NCCL_SYMBOLS is the X-macro list of entry points
// (plugin_common/symbol_table.h). Every REQUIRED one exists since NCCL 2.14
// (non-blocking communicators: ncclCommInitRankConfig with blocking = 0).
#ifndef OMNIRT_PLUGINS_CUDA_NCCL_API_H_
#define OMNIRT_PLUGINS_CUDA_NCCL_API_H_

#include <climits>
#include <cstddef>

#include "cuda_symbols.h"  // cudaStream_t

namespace omnirt::cuda {

typedef struct ncclComm* ncclComm_t;

enum ncclResult_t : int {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
  ncclTimeout = 8,  // 2.24
};

enum ncclDataType_t : int {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8,
  ncclBfloat16 = 9,
};

enum ncclRedOp_t : int {
  ncclSum = 0,
  ncclProd = 1,
  ncclMax = 2,
  ncclMin = 3,
  ncclAvg = 4,  // 2.10
};

constexpr size_t kNcclUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES
struct ncclUniqueId {
  char internal[kNcclUniqueIdBytes];
};

// ncclConfig_t as of NCCL 2.17 (ncclConfig_v21700). NCCL reads `size` and
// `version` to know which fields its caller set; later fields keep their
// defaults.
struct ncclConfig_v21700 {
  size_t size;
  unsigned int magic;
  unsigned int version;
  int blocking;
  int cgaClusterSize;
  int minCTAs;
  int maxCTAs;
  const char* netName;
};
constexpr unsigned int kNcclConfigMagic = 0xcafebeef;  // NCCL_API_MAGIC
constexpr unsigned int kNcclConfigVersion = 21700;     // NCCL_VERSION(2, 17, 0)
constexpr int kNcclConfigUndefInt = INT_MIN;           // NCCL_CONFIG_UNDEF_INT

// clang-format off
// REQUIRED(name, return type, (parameters)); OPTIONAL(features, name, ...).
#define OMNIRT_NCCL_SYMBOLS(REQUIRED, OPTIONAL)                                                     \
  REQUIRED(ncclGetVersion, ncclResult_t, (int* version))                                           \
  REQUIRED(ncclGetErrorString, const char*, (ncclResult_t result))                                 \
  REQUIRED(ncclGetUniqueId, ncclResult_t, (ncclUniqueId* uniqueId))                                \
  REQUIRED(ncclCommInitRankConfig, ncclResult_t,                                                   \
           (ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_v21700* config)) \
  REQUIRED(ncclCommFinalize, ncclResult_t, (ncclComm_t comm))                                      \
  REQUIRED(ncclCommDestroy, ncclResult_t, (ncclComm_t comm))                                       \
  REQUIRED(ncclCommAbort, ncclResult_t, (ncclComm_t comm))                                         \
  REQUIRED(ncclCommGetAsyncError, ncclResult_t, (ncclComm_t comm, ncclResult_t* asyncError))       \
  REQUIRED(ncclAllReduce, ncclResult_t,                                                            \
           (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,           \
            ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream))                                 \
  REQUIRED(ncclAllGather, ncclResult_t,                                                            \
           (const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,       \
            ncclComm_t comm, cudaStream_t stream))                                                 \
  REQUIRED(ncclReduceScatter, ncclResult_t,                                                        \
           (const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t datatype,       \
            ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream))                                 \
  REQUIRED(ncclBroadcast, ncclResult_t,                                                            \
           (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root, \
            ncclComm_t comm, cudaStream_t stream))                                                 \
  REQUIRED(ncclSend, ncclResult_t,                                                                 \
           (const void* sendbuff, size_t count, ncclDataType_t datatype, int peer,                 \
            ncclComm_t comm, cudaStream_t stream))                                                 \
  REQUIRED(ncclRecv, ncclResult_t,                                                                 \
           (void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,      \
            cudaStream_t stream))                                                                  \
  REQUIRED(ncclGroupStart, ncclResult_t, ())                                                       \
  REQUIRED(ncclGroupEnd, ncclResult_t, ())                                                         \
  OPTIONAL(0, ncclGetLastError, const char*, (ncclComm_t comm))
// clang-format on

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_NCCL_API_H_
