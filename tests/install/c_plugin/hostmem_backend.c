/*
 * hostmem: a minimal OmniRT backend in plain C99, the template for vendors who
 * write no C++. The host's memory is its one device; it implements the
 * required slots and leaves every optional slot NULL, so the host answers
 * NOT_SUPPORTED for streams, events and the rest, and no feature bit is set.
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign, sysconf */

#include <omnirt/backend.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOSTMEM_ALIGNMENT 256 /* the ABI's minimum for device memory */

/* The host's services, from the entry call until the plugin is unloaded. */
static const omnirt_host_services* g_host;

struct omnirt_backend_state {
  uint64_t total_memory_bytes;
  int32_t cores;
};

static omnirt_status fail(omnirt_status status, const char* message) {
  return g_host->set_error(status, 0, message);
}

static omnirt_status check_device(int32_t device) {
  if (device != 0) return fail(OMNIRT_STATUS_OUT_OF_RANGE, "hostmem: only device 0 exists");
  return OMNIRT_STATUS_OK;
}

/* Writes `size` bytes of `full` into a caller's sized struct `out`: no byte
   past the caller's struct_size, which is kept (PLUGIN_RULES 6). */
static void copy_sized(void* out, const void* full, size_t size) {
  size_t caller_size;
  memcpy(&caller_size, out, sizeof caller_size);
  memcpy(out, full, caller_size < size ? caller_size : size);
  memcpy(out, &caller_size, sizeof caller_size);
}

static omnirt_status hostmem_create(const omnirt_backend_create_args* args,
                                    omnirt_backend_state** out) {
  omnirt_backend_state* state = calloc(1, sizeof *state);
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGESIZE);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  (void)args; /* hostmem has no options */
  if (state == NULL) return fail(OMNIRT_STATUS_OUT_OF_MEMORY, "hostmem: out of memory");
  state->total_memory_bytes = pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
  state->cores = cores > 0 ? (int32_t)cores : 0;
  *out = state;
  return OMNIRT_STATUS_OK;
}

static void hostmem_destroy(omnirt_backend_state* state) { free(state); }

static omnirt_status hostmem_is_available(omnirt_backend_state* state, int32_t* available,
                                          char* reason, size_t capacity) {
  (void)state;
  *available = 1;
  if (reason != NULL && capacity > 0) reason[0] = '\0';
  return OMNIRT_STATUS_OK;
}

static omnirt_status hostmem_get_capabilities(omnirt_backend_state* state,
                                              omnirt_capabilities* caps) {
  omnirt_capabilities full;
  (void)state;
  memset(&full, 0, sizeof full);
  full.struct_size = sizeof full;
  full.dl_device_type = kDLCPU;
  full.device_count = 1;
  full.features = 0; /* no optional feature */
  full.dtypes = 0;   /* moves bytes, computes nothing */
  full.vendor = "example";
  copy_sized(caps, &full, sizeof full);
  return OMNIRT_STATUS_OK;
}

static omnirt_status hostmem_get_device_count(omnirt_backend_state* state, int32_t* count) {
  (void)state;
  *count = 1;
  return OMNIRT_STATUS_OK;
}

static omnirt_status hostmem_get_device_info(omnirt_backend_state* state, int32_t device,
                                             omnirt_device_info* info) {
  omnirt_device_info full;
  omnirt_status status = check_device(device);
  if (status != OMNIRT_STATUS_OK) return status;
  memset(&full, 0, sizeof full);
  full.struct_size = sizeof full;
  full.index = device;
  full.dl_device_type = kDLCPU;
  snprintf(full.name, sizeof full.name, "host memory");
  snprintf(full.arch, sizeof full.arch, "host");
  full.total_memory_bytes = state->total_memory_bytes;
  full.compute_units = state->cores;
  copy_sized(info, &full, sizeof full);
  return OMNIRT_STATUS_OK;
}

static omnirt_status hostmem_malloc_device(omnirt_backend_state* state, int32_t device,
                                           size_t size, void** ptr) {
  omnirt_status status = check_device(device);
  (void)state;
  if (status != OMNIRT_STATUS_OK) return status;
  *ptr = NULL;
  if (size == 0) return OMNIRT_STATUS_OK;
  if (posix_memalign(ptr, HOSTMEM_ALIGNMENT, size) != 0) {
    *ptr = NULL;
    return fail(OMNIRT_STATUS_OUT_OF_MEMORY, "hostmem: out of host memory");
  }
  return OMNIRT_STATUS_OK;
}

static omnirt_status hostmem_free_device(omnirt_backend_state* state, int32_t device, void* ptr) {
  omnirt_status status = check_device(device);
  (void)state;
  if (status != OMNIRT_STATUS_OK) return status;
  free(ptr);
  return OMNIRT_STATUS_OK;
}

static omnirt_status hostmem_memcpy_sync(omnirt_backend_state* state, void* dst, const void* src,
                                         size_t size, int32_t kind) {
  (void)state;
  if (kind < OMNIRT_MEMCPY_HOST_TO_HOST || kind > OMNIRT_MEMCPY_DEVICE_TO_DEVICE) {
    return fail(OMNIRT_STATUS_INVALID_ARGUMENT, "hostmem: unknown memcpy kind");
  }
  if (size == 0) return OMNIRT_STATUS_OK;
  if (dst == NULL || src == NULL) return fail(OMNIRT_STATUS_INVALID_ARGUMENT, "hostmem: NULL buffer");
  memmove(dst, src, size);
  return OMNIRT_STATUS_OK;
}

static omnirt_status hostmem_memset_sync(omnirt_backend_state* state, void* ptr, int32_t value,
                                         size_t size) {
  (void)state;
  if (size == 0) return OMNIRT_STATUS_OK;
  if (ptr == NULL) return fail(OMNIRT_STATUS_INVALID_ARGUMENT, "hostmem: NULL buffer");
  memset(ptr, (unsigned char)value, size);
  return OMNIRT_STATUS_OK;
}

/* Every call above completes before it returns: nothing is ever pending. */
static omnirt_status hostmem_device_synchronize(omnirt_backend_state* state, int32_t device) {
  (void)state;
  return check_device(device);
}

static const omnirt_backend_vtable kVtable = {
    .struct_size = sizeof(omnirt_backend_vtable),
    .abi_version = OMNIRT_ABI_VERSION,
    .name = "hostmem",
    .plugin_version = HOSTMEM_VERSION,
    .create = hostmem_create,
    .destroy = hostmem_destroy,
    .is_available = hostmem_is_available,
    .get_capabilities = hostmem_get_capabilities,
    .get_device_count = hostmem_get_device_count,
    .get_device_info = hostmem_get_device_info,
    .malloc_device = hostmem_malloc_device,
    .free_device = hostmem_free_device,
    .memcpy_sync = hostmem_memcpy_sync,
    .memset_sync = hostmem_memset_sync,
    .device_synchronize = hostmem_device_synchronize,
};

/* Serves any host whose offered range holds ABI major 1 (PLUGIN_RULES 3). */
OMNIRT_EXPORT const omnirt_backend_vtable* omnirt_backend_entry(
    const omnirt_backend_entry_args* args) {
  if (args == NULL || args->struct_size < sizeof *args || args->host == NULL) return NULL;
  if (OMNIRT_VERSION_MAJOR(args->host_abi_min) > OMNIRT_ABI_VERSION_MAJOR ||
      OMNIRT_VERSION_MAJOR(args->host_abi_max) < OMNIRT_ABI_VERSION_MAJOR) {
    args->host->set_error(OMNIRT_STATUS_INCOMPATIBLE, 0, "hostmem speaks ABI major 1 only");
    return NULL;
  }
  g_host = args->host;
  return &kVtable;
}
