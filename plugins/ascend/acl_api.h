// The part of the AscendCL runtime API (libascendcl.so, CANN) this backend
// binds, declared from Huawei's public API reference (acl_rt.h, acl_base.h,
// rt_error_codes.h); no vendor header is needed to build. Spellings follow the
// vendor's so each line can be checked against its documentation page.
//
// OMNIRT_ACL_SYMBOLS is the X-macro list of entry points. REQUIRED ones make the
// runtime usable at all; each OPTIONAL one names the OMNIRT_FEATURE_* bits that
// are cleared when an older CANN lacks it. The simulated runtime in
// tests/vendors/sim declares its exports from the same list.
#ifndef OMNIRT_PLUGINS_ASCEND_ACL_API_H_
#define OMNIRT_PLUGINS_ASCEND_ACL_API_H_

#include <cstddef>
#include <cstdint>

#include "omnirt/types.h"

namespace omnirt::ascend {

using aclError = int;
using aclrtStream = void*;
using aclrtEvent = void*;
using aclrtContext = void*;

// C enums of the vendor API; int-sized on every ABI ACL supports.
enum aclrtMemMallocPolicy : int {
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
  ACL_MEM_MALLOC_HUGE_ONLY = 1,
  ACL_MEM_MALLOC_NORMAL_ONLY = 2,
};

// Same values as omnirt_memcpy_kind (both follow cudaMemcpyKind).
enum aclrtMemcpyKind : int {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
};

enum aclrtMemAttr : int {
  ACL_DDR_MEM = 0,
  ACL_HBM_MEM = 1,
};

enum aclrtStreamStatus : int {
  ACL_STREAM_STATUS_COMPLETE = 0,
  ACL_STREAM_STATUS_NOT_READY = 1,
};

// Note the order: unlike aclrtStreamStatus, NOT_READY is 0.
enum aclrtEventRecordedStatus : int {
  ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
  ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
};

enum aclDeviceInfo : int {
  ACL_DEVICE_INFO_AI_CORE_NUM = 0,
};

// Timing and stream waits are done with events: without events, neither.
constexpr uint64_t kAclEventFeatures =
    OMNIRT_FEATURE_EVENTS | OMNIRT_FEATURE_EVENT_TIMING | OMNIRT_FEATURE_STREAM_WAIT_EVENT;

// clang-format off
// REQUIRED(name, return type, (parameters)); OPTIONAL(features, name, ...).
#define OMNIRT_ACL_SYMBOLS(REQUIRED, OPTIONAL)                                                    \
  REQUIRED(aclInit, aclError, (const char* configPath))                                          \
  REQUIRED(aclFinalize, aclError, ())                                                             \
  REQUIRED(aclrtGetDeviceCount, aclError, (uint32_t* count))                                      \
  REQUIRED(aclrtSetDevice, aclError, (int32_t deviceId))                                          \
  REQUIRED(aclrtResetDevice, aclError, (int32_t deviceId))                                        \
  REQUIRED(aclrtGetCurrentContext, aclError, (aclrtContext* context))                             \
  REQUIRED(aclrtSetCurrentContext, aclError, (aclrtContext context))                              \
  REQUIRED(aclrtSynchronizeDevice, aclError, ())                                                  \
  REQUIRED(aclrtMalloc, aclError, (void** devPtr, size_t size, aclrtMemMallocPolicy policy))      \
  REQUIRED(aclrtFree, aclError, (void* devPtr))                                                   \
  REQUIRED(aclrtMemcpy, aclError,                                                                 \
           (void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind))      \
  REQUIRED(aclrtMemset, aclError, (void* devPtr, size_t maxCount, int32_t value, size_t count))   \
  OPTIONAL(0, aclGetRecentErrMsg, const char*, ())                                                \
  OPTIONAL(0, aclrtGetSocName, const char*, ())                                                   \
  OPTIONAL(0, aclGetDeviceCapability, aclError,                                                   \
           (uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value))                         \
  OPTIONAL(OMNIRT_FEATURE_HOST_ALLOC, aclrtMallocHost, aclError, (void** hostPtr, size_t size))   \
  OPTIONAL(OMNIRT_FEATURE_HOST_ALLOC, aclrtFreeHost, aclError, (void* hostPtr))                   \
  OPTIONAL(OMNIRT_FEATURE_ASYNC_COPY, aclrtMemcpyAsync, aclError,                                 \
           (void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,       \
            aclrtStream stream))                                                                  \
  OPTIONAL(OMNIRT_FEATURE_ASYNC_COPY, aclrtMemsetAsync, aclError,                                 \
           (void* devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream))      \
  OPTIONAL(OMNIRT_FEATURE_PEER_COPY, aclrtDeviceCanAccessPeer, aclError,                         \
           (int32_t* canAccessPeer, int32_t deviceId, int32_t peerDeviceId))                      \
  OPTIONAL(OMNIRT_FEATURE_PEER_COPY, aclrtDeviceEnablePeerAccess, aclError,                       \
           (int32_t peerDeviceId, uint32_t flags))                                                \
  OPTIONAL(OMNIRT_FEATURE_MEM_INFO, aclrtGetMemInfo, aclError,                                    \
           (aclrtMemAttr attr, size_t* free, size_t* total))                                      \
  OPTIONAL(OMNIRT_FEATURE_STREAMS, aclrtCreateStream, aclError, (aclrtStream* stream))            \
  OPTIONAL(OMNIRT_FEATURE_STREAMS, aclrtDestroyStream, aclError, (aclrtStream stream))            \
  OPTIONAL(OMNIRT_FEATURE_STREAMS, aclrtSynchronizeStream, aclError, (aclrtStream stream))        \
  OPTIONAL(OMNIRT_FEATURE_STREAMS, aclrtStreamQuery, aclError,                                    \
           (aclrtStream stream, aclrtStreamStatus* status))                                       \
  OPTIONAL(OMNIRT_FEATURE_STREAM_WAIT_EVENT, aclrtStreamWaitEvent, aclError,                      \
           (aclrtStream stream, aclrtEvent event))                                                \
  OPTIONAL(kAclEventFeatures, aclrtCreateEvent, aclError, (aclrtEvent* event))                    \
  OPTIONAL(kAclEventFeatures, aclrtDestroyEvent, aclError, (aclrtEvent event))                    \
  OPTIONAL(kAclEventFeatures, aclrtRecordEvent, aclError, (aclrtEvent event, aclrtStream stream)) \
  OPTIONAL(kAclEventFeatures, aclrtQueryEventStatus, aclError,                                    \
           (aclrtEvent event, aclrtEventRecordedStatus * status))                                 \
  OPTIONAL(kAclEventFeatures, aclrtSynchronizeEvent, aclError, (aclrtEvent event))                \
  OPTIONAL(OMNIRT_FEATURE_EVENT_TIMING, aclrtEventElapsedTime, aclError,                          \
           (float* ms, aclrtEvent startEvent, aclrtEvent endEvent))
// clang-format on

}  // namespace omnirt::ascend

#endif  // OMNIRT_PLUGINS_ASCEND_ACL_API_H_
