/*
 * OmniRT C ABI — status codes and export macros.
 *
 * Every call across the ABI, in either direction, returns an omnirt_status.
 * No C++ exception ever crosses the ABI. Detail (message, vendor-native code)
 * travels beside the status: plugins record it through
 * omnirt_host_services::set_error, embedders read it with omnirt_last_error().
 *
 * Pure C99; compiles warning-free as C and as C++.
 */
#ifndef OMNIRT_STATUS_H_
#define OMNIRT_STATUS_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define OMNIRT_EXTERN_C_BEGIN extern "C" {
#define OMNIRT_EXTERN_C_END }
#else
#define OMNIRT_EXTERN_C_BEGIN
#define OMNIRT_EXTERN_C_END
#endif

/** Marks a symbol exported from libomnirt.so or from a plugin .so. */
#if defined(_WIN32)
#define OMNIRT_EXPORT __declspec(dllexport)
#else
#define OMNIRT_EXPORT __attribute__((visibility("default")))
#endif

OMNIRT_EXTERN_C_BEGIN

/**
 * Result of every ABI call. A plain int32_t so that its size never depends on
 * the compiler's enum sizing. Values are stable forever; new codes are only
 * appended. Callers must treat an unknown non-zero value like
 * OMNIRT_STATUS_INTERNAL.
 */
typedef int32_t omnirt_status;

/** The status codes. */
enum omnirt_status_code {
  /** Success. */
  OMNIRT_STATUS_OK = 0,
  /** An argument is wrong (NULL where not allowed, bad size, bad tensor). */
  OMNIRT_STATUS_INVALID_ARGUMENT = 1,
  /** A named thing (backend, op, tag, device, file) does not exist. */
  OMNIRT_STATUS_NOT_FOUND = 2,
  /** The backend does not implement this feature; its capability bit is clear. */
  OMNIRT_STATUS_NOT_SUPPORTED = 3,
  /** The backend exists but cannot run here (no driver, no device, no SDK). */
  OMNIRT_STATUS_UNAVAILABLE = 4,
  /** A device or host allocation failed. */
  OMNIRT_STATUS_OUT_OF_MEMORY = 5,
  /** Versions or struct layouts do not match (ABI negotiation, bad struct_size). */
  OMNIRT_STATUS_INCOMPATIBLE = 6,
  /** A bug or an unexpected failure (including an exception caught at the ABI). */
  OMNIRT_STATUS_INTERNAL = 7,
  /** Asynchronous work has not finished yet (event or stream query). Not a failure. */
  OMNIRT_STATUS_NOT_READY = 8,
  /** The thing to create already exists (e.g. an override for that tag). */
  OMNIRT_STATUS_ALREADY_EXISTS = 9,
  /** A value is outside its valid range (device index, buffer too small). */
  OMNIRT_STATUS_OUT_OF_RANGE = 10,
  /** The device failed or was lost; its state is undefined. */
  OMNIRT_STATUS_DEVICE_LOST = 11
};

OMNIRT_EXTERN_C_END

#endif /* OMNIRT_STATUS_H_ */
