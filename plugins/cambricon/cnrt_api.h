// The part of the Cambricon runtime API (libcnrt.so, Neuware/CNToolkit) this
// backend binds, declared from Cambricon's public CNRT reference (cnrt.h); no
// vendor header is needed to build. Spellings follow the vendor's so each line
// can be checked against its documentation.
//
// OMNIRT_CNRT_SYMBOLS is the X-macro list of entry points. REQUIRED ones make
// the runtime usable at all; each OPTIONAL one names the OMNIRT_FEATURE_* bits
// that are cleared when an older CNRT lacks it. The simulated runtime in
// tests/vendors/sim declares its exports from the same list.
#ifndef OMNIRT_PLUGINS_CAMBRICON_CNRT_API_H_
#define OMNIRT_PLUGINS_CAMBRICON_CNRT_API_H_

#include <cstddef>
#include <cstdint>

#include "omnirt/types.h"

namespace omnirt::cambricon {

// C enum of the vendor API (cnrtRet_t); int-sized.
using cnrtRet_t = int;
using cnrtQueue_t = struct CNqueue_st*;
using cnrtNotifier_t = struct CNnotifier_st*;

// Not the order of omnirt_memcpy_kind: host-to-device is 0 here.
enum cnrtMemTransDir_t : int {
  cnrtMemcpyHostToDev = 0,
  cnrtMemcpyDevToDev = 1,
  cnrtMemcpyDevToHost = 2,
  cnrtMemcpyHostToHost = 3,
};

enum cnrtDeviceAttr_t : int {
  cnrtAttrClusterCount = 0x205,
  cnrtAttrMcorePerCluster = 0x206,
  cnrtAttrISAVersion = 0x20a,
  cnrtAttrTotalMemSize = 0x405,  // megabytes
};

// CNRT 6.0 declares only `name`; CNRT 6.14 moved new fields to
// cnrtGetDeviceProperties_V3 and kept this symbol for this layout. The spare
// room guards against a release that writes more than it documents.
struct cnrtDeviceProp_t {
  char name[256];
  unsigned char reserved[4096];
};

// Timing and queue waits are done with notifiers: without them, neither.
constexpr uint64_t kCnrtNotifierFeatures =
    OMNIRT_FEATURE_EVENTS | OMNIRT_FEATURE_EVENT_TIMING | OMNIRT_FEATURE_STREAM_WAIT_EVENT;

// clang-format off
// REQUIRED(name, return type, (parameters)); OPTIONAL(features, name, ...).
#define OMNIRT_CNRT_SYMBOLS(REQUIRED, OPTIONAL)                                                   \
  REQUIRED(cnrtGetDeviceCount, cnrtRet_t, (unsigned int* pCount))                                 \
  REQUIRED(cnrtGetDevice, cnrtRet_t, (int* pOrdinal))                                             \
  REQUIRED(cnrtSetDevice, cnrtRet_t, (int ordinal))                                               \
  REQUIRED(cnrtSyncDevice, cnrtRet_t, ())                                                         \
  REQUIRED(cnrtMalloc, cnrtRet_t, (void** pPtr, size_t bytes))                                    \
  REQUIRED(cnrtFree, cnrtRet_t, (void* ptr))                                                      \
  REQUIRED(cnrtMemcpy, cnrtRet_t, (void* dst, void* src, size_t bytes, cnrtMemTransDir_t dir))    \
  REQUIRED(cnrtMemset, cnrtRet_t, (void* ptr, int value, size_t bytes))                           \
  OPTIONAL(0, cnrtGetErrorStr, const char*, (cnrtRet_t err_code))                                 \
  OPTIONAL(0, cnrtGetDeviceProperties, cnrtRet_t, (cnrtDeviceProp_t * prop, int device))          \
  OPTIONAL(0, cnrtDeviceGetAttribute, cnrtRet_t, (int* pValue, cnrtDeviceAttr_t attr, int device)) \
  OPTIONAL(OMNIRT_FEATURE_HOST_ALLOC, cnrtHostMalloc, cnrtRet_t, (void** pPtr, size_t bytes))     \
  OPTIONAL(OMNIRT_FEATURE_HOST_ALLOC, cnrtFreeHost, cnrtRet_t, (void* ptr))                       \
  OPTIONAL(OMNIRT_FEATURE_ASYNC_COPY, cnrtMemcpyAsync_V2, cnrtRet_t,                              \
           (void* dst, void* src, size_t bytes, cnrtQueue_t queue, cnrtMemTransDir_t dir))        \
  OPTIONAL(OMNIRT_FEATURE_ASYNC_COPY, cnrtMemsetAsync, cnrtRet_t,                                 \
           (void* ptr, int value, size_t bytes, cnrtQueue_t queue))                               \
  OPTIONAL(OMNIRT_FEATURE_PEER_COPY, cnrtGetPeerAccessibility, cnrtRet_t,                        \
           (unsigned int* canAccess, int ordinal, int peerOrdinal))                               \
  OPTIONAL(OMNIRT_FEATURE_PEER_COPY, cnrtMemcpyPeer, cnrtRet_t,                                   \
           (void* dst, int dstDev, void* src, int srcDev, size_t bytes))                          \
  OPTIONAL(OMNIRT_FEATURE_PEER_COPY, cnrtMemcpyPeerAsync, cnrtRet_t,                              \
           (void* dst, int dstDev, void* src, int srcDev, size_t bytes, cnrtQueue_t queue))       \
  OPTIONAL(OMNIRT_FEATURE_MEM_INFO, cnrtMemGetInfo, cnrtRet_t, (size_t* free, size_t* total))     \
  OPTIONAL(OMNIRT_FEATURE_STREAMS, cnrtQueueCreate, cnrtRet_t, (cnrtQueue_t * pQueue))            \
  OPTIONAL(OMNIRT_FEATURE_STREAMS, cnrtQueueDestroy, cnrtRet_t, (cnrtQueue_t queue))              \
  OPTIONAL(OMNIRT_FEATURE_STREAMS, cnrtQueueSync, cnrtRet_t, (cnrtQueue_t queue))                 \
  OPTIONAL(OMNIRT_FEATURE_STREAMS, cnrtQueueQuery, cnrtRet_t, (cnrtQueue_t queue))                \
  OPTIONAL(OMNIRT_FEATURE_STREAM_WAIT_EVENT, cnrtQueueWaitNotifier, cnrtRet_t,                    \
           (cnrtNotifier_t notifier, cnrtQueue_t queue, unsigned int flag))                       \
  OPTIONAL(kCnrtNotifierFeatures, cnrtNotifierCreate, cnrtRet_t, (cnrtNotifier_t * pNotifier))    \
  OPTIONAL(kCnrtNotifierFeatures, cnrtNotifierDestroy, cnrtRet_t, (cnrtNotifier_t notifier))      \
  OPTIONAL(kCnrtNotifierFeatures, cnrtPlaceNotifier, cnrtRet_t,                                   \
           (cnrtNotifier_t notifier, cnrtQueue_t queue))                                          \
  OPTIONAL(kCnrtNotifierFeatures, cnrtQueryNotifier, cnrtRet_t, (cnrtNotifier_t notifier))        \
  OPTIONAL(kCnrtNotifierFeatures, cnrtWaitNotifier, cnrtRet_t, (cnrtNotifier_t notifier))         \
  OPTIONAL(OMNIRT_FEATURE_EVENT_TIMING, cnrtNotifierDuration, cnrtRet_t,                          \
           (cnrtNotifier_t start, cnrtNotifier_t end, float* us))
// clang-format on

}  // namespace omnirt::cambricon

#endif  // OMNIRT_PLUGINS_CAMBRICON_CNRT_API_H_
