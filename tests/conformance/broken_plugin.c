/*
 * A deliberately broken backend plugin: it loads, but breaks a rule in each
 * way the conformance kit must catch. conformance.broken_plugin_fails expects
 * the kit to fail it and to name each rule below.
 *
 *   rule 2   exports a symbol besides the entry (no version script)
 *   rule 3   ignores the ABI range the host offers
 *   rule 4   starts a thread in create
 *   rule 6   get_capabilities writes a whole struct whatever struct_size says
 *   rule 7   advertises HOST_ALLOC without implementing it (it also sets
 *            stream_create while the STREAMS bit is clear, which the host
 *            never calls: the kit sees NOT_SUPPORTED and passes STREAMS)
 *   rule 8   a double free crashes (plain free, nothing tracked)
 *   rule 11  installs a SIGUSR2 handler
 *   contract device-to-host copies of 1 MiB or more report success without
 *            copying
 */
#include <omnirt/backend.h>

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* Rule 2: visible to every other object in the process. */
int broken_plugin_instances = 0;

struct omnirt_backend_state {
  pthread_t worker;
  pthread_mutex_t mutex;
  pthread_cond_t stop;
  int stopping;
};

static void* idle_worker(void* arg) {
  struct omnirt_backend_state* s = arg;
  pthread_mutex_lock(&s->mutex);
  while (!s->stopping) pthread_cond_wait(&s->stop, &s->mutex);
  pthread_mutex_unlock(&s->mutex);
  return NULL;
}

static void ignore_signal(int sig) { (void)sig; }

static omnirt_status create(const omnirt_backend_create_args* args, omnirt_backend_state** out) {
  (void)args;
  struct omnirt_backend_state* s = calloc(1, sizeof *s);
  if (s == NULL) return OMNIRT_STATUS_OUT_OF_MEMORY;
  pthread_mutex_init(&s->mutex, NULL);
  pthread_cond_init(&s->stop, NULL);
  pthread_create(&s->worker, NULL, idle_worker, s); /* rule 4 */
  signal(SIGUSR2, ignore_signal);                    /* rule 11 */
  ++broken_plugin_instances;
  *out = s;
  return OMNIRT_STATUS_OK;
}

static void destroy(omnirt_backend_state* s) {
  if (s == NULL) return;
  pthread_mutex_lock(&s->mutex);
  s->stopping = 1;
  pthread_cond_signal(&s->stop);
  pthread_mutex_unlock(&s->mutex);
  pthread_join(s->worker, NULL);
  free(s);
}

static omnirt_status is_available(omnirt_backend_state* s, int32_t* available, char* reason,
                                  size_t capacity) {
  (void)s;
  (void)reason;
  (void)capacity;
  *available = 1;
  return OMNIRT_STATUS_OK;
}

static omnirt_status get_capabilities(omnirt_backend_state* s, omnirt_capabilities* caps) {
  (void)s;
  omnirt_capabilities full;
  memset(&full, 0, sizeof full);
  full.struct_size = sizeof full;
  full.dl_device_type = kDLCPU;
  full.device_count = 1;
  full.features = OMNIRT_FEATURE_HOST_ALLOC; /* rule 7: no malloc_host slot */
  full.vendor = "broken";
  memcpy(caps, &full, sizeof full); /* rule 6 */
  return OMNIRT_STATUS_OK;
}

static omnirt_status get_device_count(omnirt_backend_state* s, int32_t* count) {
  (void)s;
  *count = 1;
  return OMNIRT_STATUS_OK;
}

static omnirt_status get_device_info(omnirt_backend_state* s, int32_t device,
                                     omnirt_device_info* info) {
  (void)s;
  omnirt_device_info full;
  memset(&full, 0, sizeof full);
  full.index = device;
  full.dl_device_type = kDLCPU;
  strcpy(full.name, "broken device");
  strcpy(full.arch, "host");
  const size_t size = info->struct_size < sizeof full ? info->struct_size : sizeof full;
  full.struct_size = info->struct_size;
  memcpy(info, &full, size);
  return OMNIRT_STATUS_OK;
}

static omnirt_status malloc_device(omnirt_backend_state* s, int32_t device, size_t size,
                                   void** ptr) {
  (void)s;
  (void)device;
  if (size == 0) {
    *ptr = NULL;
    return OMNIRT_STATUS_OK;
  }
  if (size > ((size_t)1 << 40)) return OMNIRT_STATUS_OUT_OF_MEMORY;
  *ptr = aligned_alloc(256, (size + 255) / 256 * 256);
  return *ptr != NULL ? OMNIRT_STATUS_OK : OMNIRT_STATUS_OUT_OF_MEMORY;
}

static omnirt_status free_device(omnirt_backend_state* s, int32_t device, void* ptr) {
  (void)s;
  (void)device;
  free(ptr); /* rule 8: a second free of the same pointer aborts */
  return OMNIRT_STATUS_OK;
}

static omnirt_status memcpy_sync(omnirt_backend_state* s, void* dst, const void* src,
                                 size_t size, int32_t kind) {
  (void)s;
  if (kind < OMNIRT_MEMCPY_HOST_TO_HOST || kind > OMNIRT_MEMCPY_DEVICE_TO_DEVICE) {
    return OMNIRT_STATUS_INVALID_ARGUMENT;
  }
  if (kind == OMNIRT_MEMCPY_DEVICE_TO_HOST && size >= ((size_t)1 << 20)) {
    return OMNIRT_STATUS_OK; /* contract: success claimed, nothing copied */
  }
  memmove(dst, src, size);
  return OMNIRT_STATUS_OK;
}

static omnirt_status memset_sync(omnirt_backend_state* s, void* ptr, int32_t value, size_t size) {
  (void)s;
  memset(ptr, value, size);
  return OMNIRT_STATUS_OK;
}

static omnirt_status device_synchronize(omnirt_backend_state* s, int32_t device) {
  (void)s;
  (void)device;
  return OMNIRT_STATUS_OK;
}

/* Works although the STREAMS bit is clear; the host never calls it. */
static omnirt_status stream_create(omnirt_backend_state* s, int32_t device, omnirt_stream** stream) {
  (void)device;
  *stream = (omnirt_stream*)s;
  return OMNIRT_STATUS_OK;
}

static const omnirt_backend_vtable kVtable = {
    .struct_size = sizeof(omnirt_backend_vtable),
    .abi_version = OMNIRT_ABI_VERSION,
    .name = "broken",
    .plugin_version = "0.0.1",
    .create = create,
    .destroy = destroy,
    .is_available = is_available,
    .get_capabilities = get_capabilities,
    .get_device_count = get_device_count,
    .get_device_info = get_device_info,
    .malloc_device = malloc_device,
    .free_device = free_device,
    .memcpy_sync = memcpy_sync,
    .memset_sync = memset_sync,
    .device_synchronize = device_synchronize,
    .stream_create = stream_create,
};

/* Rule 3: answers whatever range the host offers. */
OMNIRT_EXPORT const omnirt_backend_vtable* omnirt_backend_entry(
    const omnirt_backend_entry_args* args) {
  (void)args;
  return &kVtable;
}
