// How the simulated collective libraries run work on the simulated runtime's
// streams, as the real HCCL and CNCL do on AscendCL's and CNRT's: each runtime
// simulation exports this, and its collective library links against it.
#ifndef OMNIRT_TESTS_VENDORS_SIM_SIM_ENQUEUE_H_
#define OMNIRT_TESTS_VENDORS_SIM_SIM_ENQUEUE_H_

#include "sim_core.h"

/// The calling thread's current device; -1 when it has none.
extern "C" OMNIRT_SIM_EXPORT int omnirt_sim_current_device();
/// Enqueues run(arg) on `stream` (NULL: the default stream of `device`).
/// 0 when enqueued; else `run` is not called.
extern "C" OMNIRT_SIM_EXPORT int omnirt_sim_enqueue(int device, void* stream, void (*run)(void*), void* arg);

#endif  // OMNIRT_TESTS_VENDORS_SIM_SIM_ENQUEUE_H_
