/*
 * The fake plugin zoo: one source, many plugins, one misbehaviour each
 * (Vulkan-Loader style). Built without switches it is a good backend: host
 * memory from malloc with honest statistics, streams whose async work really
 * is deferred until a synchronization point, events with timing, and graph
 * capture — enough for the host's routing to be tested end to end. Each device
 * has a default stream, the one a NULL stream stands for; built against ABI
 * 1.1 headers, stream_get_default hands it out (DEFAULT_STREAM).
 *
 * Time: work on a stream completes in order, each piece `busy` milliseconds
 * after the one before it (0 for copies and sets), counted from when it was
 * enqueued on an idle stream; a synchronization waits (sleeps) until then, and
 * an event's time is when the work recorded before it completes. So work that
 * takes time really completes later than the call that enqueued it returns.
 *
 * Switches (compile definitions):
 *   FAKE_NAME="x"             vtable name (default "good")
 *   FAKE_VERSION="x"          plugin_version (default "1.0.0")
 *   FAKE_NO_ENTRY             no entry symbol
 *   FAKE_ENTRY_RETURNS_NULL   the entry refuses: set_error(INCOMPATIBLE, 42, ...)
 *   FAKE_ABI_VERSION=v        the abi_version answered (majors too new or too old)
 *   FAKE_EXTRA_SLOTS          a newer minor: two more slots, a larger struct_size
 *   FAKE_STRUCT_SIZE=n        the struct_size answered (0, too small, absurd)
 *   FAKE_NULL_REQUIRED_SLOT   memset_sync is NULL
 *   FAKE_MINIMAL              required slots only
 *   FAKE_UNAVAILABLE          is_available says no, with a reason
 *   FAKE_CREATE_FAILS         create fails: set_error(UNAVAILABLE, 7, ...)
 *   FAKE_QUIET_ERRORS         malloc fails without set_error; reset_memory_stats
 *                             calls set_error(INTERNAL, ...) and then succeeds
 *   FAKE_THROW_IN_ENTRY       the entry throws (C++ build: fake_plugin_throw.cpp)
 *   FAKE_THROW_IN_SLOT        memset_sync throws (C++ build: fake_plugin_throw.cpp)
 *   FAKE_STRAY_FEATURE_BITS   capabilities also set every feature bit above
 *                             ABI 1.0's, and fill the caller's struct past
 *                             the plugin's own end with 0xab bytes (for the
 *                             plugins built against the frozen 1.0 headers
 *                             in tests/abi/v1_0)
 *   FAKE_MODULES              MODULES of format "fake": the module text
 *                             "run_ms=N" makes a run that takes N ms on its
 *                             stream; one float32 input in host memory, one
 *                             output of twice its values (written at once:
 *                             what the stream defers is the run's time)
 * Misbehaviour that would take a host down (vetted in a child, never loaded):
 *   FAKE_FAULT=how FAKE_FAULT_IN=where
 *                             how: FAKE_CRASH (a write to address 16: SIGSEGV),
 *                             FAKE_EXIT (exit(3)), FAKE_HANG (sleeps forever);
 *                             where: FAKE_IN_CONSTRUCTOR (a constructor, run
 *                             by dlopen), FAKE_IN_ENTRY, FAKE_IN_CREATE,
 *                             FAKE_IN_AVAILABLE (is_available)
 * Text that breaks the rules of backend.h ("Text"):
 *   FAKE_BAD_TEXT=how FAKE_BAD_TEXT_IN=field
 *                             how: FAKE_TEXT_INVALID (FAKE_INVALID_TEXT below:
 *                             bytes that are not UTF-8, control characters),
 *                             FAKE_TEXT_UNTERMINATED (no NUL: a string that
 *                             runs into an unmapped page one byte past the
 *                             field's bound, or a full buffer);
 *                             field: FAKE_FIELD_NAME, _VERSION, _VENDOR,
 *                             _FORMAT (a module format), _REASON (is_available
 *                             says no), _OP_NAME (a second op, beside
 *                             fake_copy), _OP_SET, _ERROR (create fails with
 *                             it), _LOG (create logs it at error level),
 *                             _DEVICE_NAME, _LIBRARY (collectives_library,
 *                             with the COLLECTIVES bit and no other
 *                             collective)
 *   FAKE_MULTIBYTE_REASON     is_available says no with "x" and 600 "é": the
 *                             reason snprintf cuts in the middle of an "é"
 *   FAKE_GARBAGE_SLOT=where   mem_get_info points FAKE_INTO_LIBC (libc's
 *                             abort), FAKE_INTO_DATA (the plugin's own data)
 *                             or FAKE_INTO_NOWHERE (an unmapped address)
 *   FAKE_GARBAGE_BIT          ... and MEM_INFO is advertised
 *   FAKE_UNADVERTISED_SLOTS   every optional slot is fake_trap (abort()), and
 *                             no feature bit is set: none may ever be called,
 *                             but collectives_library, which answers
 *                             UNAVAILABLE (a report slot, called anyway)
 * Named op (unless FAKE_MINIMAL): fake_copy, 1 input, 1 output: copies the
 * input's bytes into the output (host memory).
 * Backend option (create): devices=<n>, the device count (default 1).
 * create logs "fake: created with <n> device(s)" at debug level.
 * Errors: malloc beyond 1 GiB fails with OUT_OF_MEMORY, native code ENOMEM.
 *
 * Written in the common subset of C99 and C++ so that the throwing variants
 * can compile it as C++.
 */
#if !defined(__cplusplus)
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#endif

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "omnirt/backend.h"

#ifndef FAKE_NAME
#define FAKE_NAME "good"
#endif
#ifndef FAKE_VERSION
#define FAKE_VERSION "1.0.0"
#endif
#ifndef FAKE_ABI_VERSION
#ifdef FAKE_EXTRA_SLOTS
#define FAKE_ABI_VERSION OMNIRT_MAKE_VERSION(OMNIRT_ABI_VERSION_MAJOR, OMNIRT_ABI_VERSION_MINOR + 1)
#else
#define FAKE_ABI_VERSION OMNIRT_ABI_VERSION
#endif
#endif
#if (defined(FAKE_THROW_IN_ENTRY) || defined(FAKE_THROW_IN_SLOT)) && !defined(FAKE_THROW)
#error "the throwing variants are built as C++ from fake_plugin_throw.cpp"
#endif

#define FAKE_ALIGNMENT 256
/* Per-allocation header (holds the size); keeps user pointers 256-aligned. */
#define FAKE_HEADER FAKE_ALIGNMENT
#define FAKE_MEMORY_LIMIT ((size_t)1 << 30)

static const omnirt_host_services* g_host;

/* Fills a caller's sized struct only up to the struct_size it set (rule 6). */
#define FAKE_COPY_SIZED(dst, src)                                                   \
  do {                                                                              \
    size_t caller_size_ = (dst)->struct_size;                                       \
    memcpy((dst), &(src), caller_size_ < sizeof(src) ? caller_size_ : sizeof(src)); \
    (dst)->struct_size = caller_size_;                                              \
  } while (0)

static omnirt_status fake_fail(omnirt_status status, int64_t native_code, const char* message) {
  return g_host->set_error(status, native_code, message);
}

/* ---- misbehaviour ------------------------------------------------------- */

#define FAKE_CRASH 1
#define FAKE_EXIT 2
#define FAKE_HANG 3
#define FAKE_IN_CONSTRUCTOR 1
#define FAKE_IN_ENTRY 2
#define FAKE_IN_CREATE 3
#define FAKE_IN_AVAILABLE 4

#ifdef FAKE_FAULT
static void fake_fault(void) {
#if FAKE_FAULT == FAKE_CRASH
  /* A real store to an address nothing maps: volatile pointer and pointee,
   * so that the compiler makes neither a trap nor nothing of it, and not NULL,
   * which UBSan (in the sanitizer builds) would report instead. */
  volatile int* volatile nowhere = (volatile int*)(uintptr_t)16;
  *nowhere = 1;
#elif FAKE_FAULT == FAKE_EXIT
  exit(3);
#else
  for (;;) pause();
#endif
}
#define FAKE_FAULT_AT(where) \
  if (FAKE_FAULT_IN == (where)) fake_fault()
#else
#define FAKE_FAULT_AT(where) (void)0
#endif

#if defined(FAKE_FAULT) && FAKE_FAULT_IN == FAKE_IN_CONSTRUCTOR
__attribute__((constructor)) static void fake_constructor(void) { fake_fault(); }
#endif

#define FAKE_TEXT_INVALID 1
#define FAKE_TEXT_UNTERMINATED 2
#define FAKE_FIELD_NAME 1
#define FAKE_FIELD_VERSION 2
#define FAKE_FIELD_VENDOR 3
#define FAKE_FIELD_FORMAT 4
#define FAKE_FIELD_REASON 5
#define FAKE_FIELD_OP_NAME 6
#define FAKE_FIELD_OP_SET 7
#define FAKE_FIELD_ERROR 8
#define FAKE_FIELD_LOG 9
#define FAKE_FIELD_DEVICE_NAME 10
#define FAKE_FIELD_LIBRARY 11
/* Bad UTF-8 (a lone lead byte, a stray 0xFF, an overlong "/", a surrogate)
 * and control characters (ESC, newline). */
#define FAKE_INVALID_TEXT "fake\xC3(bad\xFF\xC0\xAF\xED\xA0\x80\x1B[31mred\n"

#ifdef FAKE_BAD_TEXT
#define FAKE_BAD(field) (FAKE_BAD_TEXT_IN == (field))
#if FAKE_BAD_TEXT == FAKE_TEXT_UNTERMINATED
/* A string without a NUL that ends where an unmapped page begins, `bound` + 1
 * bytes after it starts: a reader that respects the bound reads all of it, one
 * that does not crashes. */
static const char* fake_bad_text(size_t bound) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char* pages = (char*)mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == (char*)MAP_FAILED) abort();
  memset(pages, 'u', page);
  mprotect(pages + page, page, PROT_NONE);
  return pages + page - (bound + 1);
}
/* Fills a buffer the host lends without a terminator. */
static void fake_bad_buffer(char* buffer, size_t capacity) { memset(buffer, 'u', capacity); }
#else
static const char* fake_bad_text(size_t bound) {
  (void)bound;
  return FAKE_INVALID_TEXT;
}
static void fake_bad_buffer(char* buffer, size_t capacity) { snprintf(buffer, capacity, "%s", FAKE_INVALID_TEXT); }
#endif
#else
#define FAKE_BAD(field) 0
#endif

/* ---- state -------------------------------------------------------------- */

/* FAKE_OP_BUSY only takes time (a module run). */
enum fake_op_kind { FAKE_OP_MEMSET, FAKE_OP_MEMCPY, FAKE_OP_FREE, FAKE_OP_BUSY };

/* One piece of deferred work on a stream or in a graph. */
typedef struct fake_op {
  int kind;
  void* dst;
  const void* src;
  int32_t value;
  size_t size;
  double busy_ms;      /* how long it takes once the work before it is done */
  struct timespec due; /* when it completes (work on a stream, not in a graph) */
  struct fake_op* next;
} fake_op;

typedef struct fake_queue {
  fake_op* head;
  fake_op* tail;
} fake_queue;

/* The fake's devices share one memory pool and one set of statistics. */
struct omnirt_backend_state {
  pthread_mutex_t lock;
  int32_t devices;
  uint64_t allocated, peak, alloc_count, free_count;
  struct omnirt_stream* streams;   /* every stream, default ones too, for device_synchronize */
  struct omnirt_stream** defaults; /* the default stream of each device */
};

struct omnirt_stream {
  int32_t device;
  int is_default;      /* the device's default stream: never destroyed by callers */
  fake_queue pending;  /* enqueued, not yet run */
  int capturing;
  fake_queue captured; /* work recorded while capturing */
  uint64_t enqueued, completed;
  struct timespec ready; /* when the work enqueued so far completes */
  struct omnirt_stream* next;
};

struct omnirt_event {
  struct omnirt_stream* stream;   /* where it was recorded; NULL if never */
  uint64_t target;                /* completes when stream->completed reaches it */
  struct timespec completed_at;   /* when the work recorded before it completes */
};

/* ---- time --------------------------------------------------------------- */

static struct timespec fake_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t;
}

static int fake_earlier(struct timespec a, struct timespec b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

static struct timespec fake_latest(struct timespec a, struct timespec b) { return fake_earlier(a, b) ? b : a; }

static struct timespec fake_after(struct timespec t, double ms) {
  const int64_t ns = (int64_t)t.tv_nsec + (int64_t)(ms * 1e6);
  t.tv_sec += (time_t)(ns / 1000000000);
  t.tv_nsec = (long)(ns % 1000000000);
  return t;
}

static double fake_ms_between(struct timespec from, struct timespec to) {
  return (double)(to.tv_sec - from.tv_sec) * 1e3 + (double)(to.tv_nsec - from.tv_nsec) / 1e6;
}

static void fake_sleep_until(struct timespec t) {
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {
  }
}

struct omnirt_graph {
  fake_queue ops;
};

/* ---- memory ------------------------------------------------------------- */

static void* fake_alloc(omnirt_backend_state* s, size_t size) {
  void* base = NULL;
  if (posix_memalign(&base, FAKE_ALIGNMENT, FAKE_HEADER + size) != 0) return NULL;
  memcpy(base, &size, sizeof size);
  s->allocated += size;
  s->alloc_count += 1;
  if (s->allocated > s->peak) s->peak = s->allocated;
  return (char*)base + FAKE_HEADER;
}

static void fake_release(omnirt_backend_state* s, void* ptr) {
  char* base = (char*)ptr - FAKE_HEADER;
  size_t size;
  memcpy(&size, base, sizeof size);
  s->allocated -= size;
  s->free_count += 1;
  free(base);
}

static omnirt_status fake_malloc_locked(omnirt_backend_state* s, size_t size, void** ptr) {
  char message[128];
  *ptr = NULL;
  if (size == 0) return OMNIRT_STATUS_OK;
  if (size > FAKE_MEMORY_LIMIT - s->allocated) {
#ifdef FAKE_QUIET_ERRORS
    (void)message;
    return OMNIRT_STATUS_OUT_OF_MEMORY;
#else
    snprintf(message, sizeof message, "fake: cannot allocate %zu bytes: %llu of 1 GiB in use", size,
             (unsigned long long)s->allocated);
    return fake_fail(OMNIRT_STATUS_OUT_OF_MEMORY, ENOMEM, message);
#endif
  }
  *ptr = fake_alloc(s, size);
  return *ptr != NULL ? OMNIRT_STATUS_OK : fake_fail(OMNIRT_STATUS_OUT_OF_MEMORY, ENOMEM, "fake: malloc failed");
}

static omnirt_status fake_malloc_device(omnirt_backend_state* s, int32_t device, size_t size, void** ptr) {
  omnirt_status status;
  (void)device;
  pthread_mutex_lock(&s->lock);
  status = fake_malloc_locked(s, size, ptr);
  pthread_mutex_unlock(&s->lock);
  return status;
}

static omnirt_status fake_free_device(omnirt_backend_state* s, int32_t device, void* ptr) {
  (void)device;
  if (ptr == NULL) return OMNIRT_STATUS_OK;
  pthread_mutex_lock(&s->lock);
  fake_release(s, ptr);
  pthread_mutex_unlock(&s->lock);
  return OMNIRT_STATUS_OK;
}

static void fake_flush_locked(omnirt_backend_state* s, omnirt_stream* stream);

/* Sync copies and sets wait for the work on the default streams first. */
static void fake_wait_default_streams(omnirt_backend_state* s) {
  int32_t device;
  pthread_mutex_lock(&s->lock);
  for (device = 0; device < s->devices; ++device) fake_flush_locked(s, s->defaults[device]);
  pthread_mutex_unlock(&s->lock);
}

static omnirt_status fake_memcpy_sync(omnirt_backend_state* s, void* dst, const void* src, size_t size,
                                      int32_t kind) {
  (void)kind;
  fake_wait_default_streams(s);
  if (size > 0) memmove(dst, src, size);
  return OMNIRT_STATUS_OK;
}

#ifndef FAKE_NULL_REQUIRED_SLOT
static omnirt_status fake_memset_sync(omnirt_backend_state* s, void* ptr, int32_t value, size_t size) {
  fake_wait_default_streams(s);
#ifdef FAKE_THROW_IN_SLOT
  if (size > 0) FAKE_THROW("fake: memset_sync threw");
#endif
  if (size > 0) memset(ptr, value, size);
  return OMNIRT_STATUS_OK;
}
#endif

/* ---- deferred work ------------------------------------------------------ */

static fake_op* fake_push(fake_queue* queue, int kind, void* dst, const void* src, int32_t value,
                          size_t size, double busy_ms) {
  fake_op* op = (fake_op*)calloc(1, sizeof(fake_op));
  if (op == NULL) return NULL;
  op->kind = kind;
  op->dst = dst;
  op->src = src;
  op->value = value;
  op->size = size;
  op->busy_ms = busy_ms;
  if (queue->tail != NULL) {
    queue->tail->next = op;
  } else {
    queue->head = op;
  }
  queue->tail = op;
  return op;
}

static void fake_clear(fake_queue* queue) {
  while (queue->head != NULL) {
    fake_op* next = queue->head->next;
    free(queue->head);
    queue->head = next;
  }
  queue->tail = NULL;
}

/* Work enqueued on a capturing stream is recorded into the graph, not run. */
static omnirt_status fake_enqueue_timed(omnirt_backend_state* s, omnirt_stream* stream, int kind, void* dst,
                                        const void* src, int32_t value, size_t size, double busy_ms) {
  fake_op* op;
  pthread_mutex_lock(&s->lock);
  if (stream->capturing) {
    op = fake_push(&stream->captured, kind, dst, src, value, size, busy_ms);
  } else {
    op = fake_push(&stream->pending, kind, dst, src, value, size, busy_ms);
    if (op != NULL) {
      stream->enqueued += 1;
      op->due = fake_after(fake_latest(fake_now(), stream->ready), busy_ms);
      stream->ready = op->due;
    }
  }
  pthread_mutex_unlock(&s->lock);
  return op != NULL ? OMNIRT_STATUS_OK : fake_fail(OMNIRT_STATUS_OUT_OF_MEMORY, ENOMEM, "fake: cannot queue work");
}

static omnirt_status fake_enqueue(omnirt_backend_state* s, omnirt_stream* stream, int kind, void* dst,
                                  const void* src, int32_t value, size_t size) {
  return fake_enqueue_timed(s, stream, kind, dst, src, value, size, 0);
}

/* Runs the stream's pending work, each piece once it is due. Sleeping under
 * the lock stalls the fake's other calls meanwhile: fine for a test double. */
static void fake_flush_locked(omnirt_backend_state* s, omnirt_stream* stream) {
  fake_op* op;
  for (op = stream->pending.head; op != NULL; op = op->next) {
    fake_sleep_until(op->due);
    if (op->kind == FAKE_OP_MEMSET) memset(op->dst, op->value, op->size);
    if (op->kind == FAKE_OP_MEMCPY) memmove(op->dst, op->src, op->size);
    if (op->kind == FAKE_OP_FREE) fake_release(s, op->dst);
    stream->completed += 1;
  }
  fake_clear(&stream->pending);
}

static omnirt_status fake_device_synchronize(omnirt_backend_state* s, int32_t device) {
  omnirt_stream* stream;
  pthread_mutex_lock(&s->lock);
  for (stream = s->streams; stream != NULL; stream = stream->next) {
    if (stream->device == device) fake_flush_locked(s, stream);
  }
  pthread_mutex_unlock(&s->lock);
  return OMNIRT_STATUS_OK;
}

#ifndef FAKE_MINIMAL
static omnirt_status fake_malloc_host(omnirt_backend_state* s, size_t size, void** ptr) {
  return fake_malloc_device(s, 0, size, ptr);
}

static omnirt_status fake_free_host(omnirt_backend_state* s, void* ptr) { return fake_free_device(s, 0, ptr); }

static omnirt_status fake_malloc_async(omnirt_backend_state* s, size_t size, omnirt_stream* stream, void** ptr) {
  return fake_malloc_device(s, stream->device, size, ptr);
}

static omnirt_status fake_free_async(omnirt_backend_state* s, void* ptr, omnirt_stream* stream) {
  return fake_enqueue(s, stream, FAKE_OP_FREE, ptr, NULL, 0, 0);
}

static omnirt_status fake_memcpy_async(omnirt_backend_state* s, void* dst, const void* src, size_t size,
                                       int32_t kind, omnirt_stream* stream) {
  (void)kind;
  return fake_enqueue(s, stream, FAKE_OP_MEMCPY, dst, src, 0, size);
}

static omnirt_status fake_memset_async(omnirt_backend_state* s, void* ptr, int32_t value, size_t size,
                                       omnirt_stream* stream) {
  return fake_enqueue(s, stream, FAKE_OP_MEMSET, ptr, NULL, value, size);
}

static omnirt_status fake_mem_get_info(omnirt_backend_state* s, int32_t device, size_t* free_bytes,
                                       size_t* total_bytes) {
  (void)device;
  pthread_mutex_lock(&s->lock);
  *total_bytes = FAKE_MEMORY_LIMIT;
  *free_bytes = FAKE_MEMORY_LIMIT - s->allocated;
  pthread_mutex_unlock(&s->lock);
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_memory_stats(omnirt_backend_state* s, int32_t device, omnirt_memory_stats* stats) {
  omnirt_memory_stats full;
  (void)device;
  memset(&full, 0, sizeof full);
  full.struct_size = sizeof full;
  full.known = OMNIRT_STAT_ALLOCATED_BYTES | OMNIRT_STAT_PEAK_BYTES | OMNIRT_STAT_ALLOC_COUNT |
               OMNIRT_STAT_FREE_COUNT;
  pthread_mutex_lock(&s->lock);
  full.allocated_bytes = s->allocated;
  full.peak_bytes = s->peak;
  full.alloc_count = s->alloc_count;
  full.free_count = s->free_count;
  pthread_mutex_unlock(&s->lock);
  FAKE_COPY_SIZED(stats, full);
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_reset_memory_stats(omnirt_backend_state* s, int32_t device) {
  (void)device;
#ifdef FAKE_QUIET_ERRORS
  fake_fail(OMNIRT_STATUS_INTERNAL, 99, "fake: recovered from an internal error");
#endif
  pthread_mutex_lock(&s->lock);
  s->peak = s->allocated;
  s->alloc_count = 0;
  s->free_count = 0;
  pthread_mutex_unlock(&s->lock);
  return OMNIRT_STATUS_OK;
}

/* ---- streams, events, graphs -------------------------------------------- */

static omnirt_status fake_stream_create(omnirt_backend_state* s, int32_t device, omnirt_stream** out) {
  omnirt_stream* stream = (omnirt_stream*)calloc(1, sizeof(omnirt_stream));
  if (stream == NULL) return fake_fail(OMNIRT_STATUS_OUT_OF_MEMORY, ENOMEM, "fake: cannot create a stream");
  stream->device = device;
  pthread_mutex_lock(&s->lock);
  stream->next = s->streams;
  s->streams = stream;
  pthread_mutex_unlock(&s->lock);
  *out = stream;
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_stream_destroy(omnirt_backend_state* s, omnirt_stream* stream) {
  omnirt_stream** link;
  if (stream == NULL) return OMNIRT_STATUS_OK;
  if (stream->is_default) {
    return fake_fail(OMNIRT_STATUS_INVALID_ARGUMENT, 0, "fake: the default stream cannot be destroyed");
  }
  pthread_mutex_lock(&s->lock);
  fake_flush_locked(s, stream);
  fake_clear(&stream->captured);
  for (link = &s->streams; *link != NULL; link = &(*link)->next) {
    if (*link == stream) {
      *link = stream->next;
      break;
    }
  }
  pthread_mutex_unlock(&s->lock);
  free(stream);
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_stream_synchronize(omnirt_backend_state* s, omnirt_stream* stream) {
  pthread_mutex_lock(&s->lock);
  fake_flush_locked(s, stream);
  pthread_mutex_unlock(&s->lock);
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_stream_query(omnirt_backend_state* s, omnirt_stream* stream) {
  int busy;
  pthread_mutex_lock(&s->lock);
  busy = stream->pending.head != NULL;
  pthread_mutex_unlock(&s->lock);
  return busy ? OMNIRT_STATUS_NOT_READY : OMNIRT_STATUS_OK;
}

/* An event is complete once its stream has run the work enqueued before it. */
static int fake_event_done_locked(const omnirt_event* event) {
  return event->stream == NULL || event->stream->completed >= event->target;
}

/* Work on `stream` is deferred anyway: finishing the event's stream orders it,
 * and later work on `stream` starts no earlier than the event completes. */
static omnirt_status fake_stream_wait_event(omnirt_backend_state* s, omnirt_stream* stream, omnirt_event* event) {
  pthread_mutex_lock(&s->lock);
  if (event->stream != NULL) {
    fake_flush_locked(s, event->stream);
    stream->ready = fake_latest(stream->ready, event->completed_at);
  }
  pthread_mutex_unlock(&s->lock);
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_event_create(omnirt_backend_state* s, int32_t device, omnirt_event** out) {
  (void)s;
  (void)device;
  *out = (omnirt_event*)calloc(1, sizeof(omnirt_event));
  return *out != NULL ? OMNIRT_STATUS_OK : fake_fail(OMNIRT_STATUS_OUT_OF_MEMORY, ENOMEM, "fake: cannot create an event");
}

static omnirt_status fake_event_destroy(omnirt_backend_state* s, omnirt_event* event) {
  (void)s;
  free(event);
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_event_record(omnirt_backend_state* s, omnirt_event* event, omnirt_stream* stream) {
  pthread_mutex_lock(&s->lock);
  event->stream = stream;
  event->target = stream->enqueued;
  event->completed_at = fake_latest(fake_now(), stream->ready);
  pthread_mutex_unlock(&s->lock);
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_event_query(omnirt_backend_state* s, omnirt_event* event) {
  int done;
  pthread_mutex_lock(&s->lock);
  done = fake_event_done_locked(event);
  pthread_mutex_unlock(&s->lock);
  return done ? OMNIRT_STATUS_OK : OMNIRT_STATUS_NOT_READY;
}

static omnirt_status fake_event_synchronize(omnirt_backend_state* s, omnirt_event* event) {
  pthread_mutex_lock(&s->lock);
  if (event->stream != NULL) fake_flush_locked(s, event->stream);
  pthread_mutex_unlock(&s->lock);
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_event_elapsed_time(omnirt_backend_state* s, omnirt_event* start, omnirt_event* end,
                                             float* milliseconds) {
  omnirt_status status = OMNIRT_STATUS_OK;
  pthread_mutex_lock(&s->lock);
  if (start->stream == NULL || end->stream == NULL) {
    status = fake_fail(OMNIRT_STATUS_INVALID_ARGUMENT, 0, "fake: event was never recorded");
  } else if (!fake_event_done_locked(start) || !fake_event_done_locked(end)) {
    status = OMNIRT_STATUS_NOT_READY;
  } else {
    *milliseconds = (float)fake_ms_between(start->completed_at, end->completed_at);
  }
  pthread_mutex_unlock(&s->lock);
  return status;
}

static omnirt_status fake_stream_begin_capture(omnirt_backend_state* s, omnirt_stream* stream) {
  omnirt_status status = OMNIRT_STATUS_OK;
  pthread_mutex_lock(&s->lock);
  if (stream->capturing) {
    status = fake_fail(OMNIRT_STATUS_INVALID_ARGUMENT, 0, "fake: stream is already capturing");
  } else {
    stream->capturing = 1;
  }
  pthread_mutex_unlock(&s->lock);
  return status;
}

static omnirt_status fake_stream_end_capture(omnirt_backend_state* s, omnirt_stream* stream, omnirt_graph** out) {
  omnirt_graph* graph = (omnirt_graph*)calloc(1, sizeof(omnirt_graph));
  if (graph == NULL) return fake_fail(OMNIRT_STATUS_OUT_OF_MEMORY, ENOMEM, "fake: cannot create a graph");
  pthread_mutex_lock(&s->lock);
  if (!stream->capturing) {
    pthread_mutex_unlock(&s->lock);
    free(graph);
    return fake_fail(OMNIRT_STATUS_INVALID_ARGUMENT, 0, "fake: stream is not capturing");
  }
  graph->ops = stream->captured;
  stream->captured.head = stream->captured.tail = NULL;
  stream->capturing = 0;
  pthread_mutex_unlock(&s->lock);
  *out = graph;
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_graph_launch(omnirt_backend_state* s, omnirt_graph* graph, omnirt_stream* stream) {
  const fake_op* op;
  omnirt_status status = OMNIRT_STATUS_OK;
  for (op = graph->ops.head; op != NULL && status == OMNIRT_STATUS_OK; op = op->next) {
    status = fake_enqueue_timed(s, stream, op->kind, op->dst, op->src, op->value, op->size, op->busy_ms);
  }
  return status;
}

static omnirt_status fake_graph_destroy(omnirt_backend_state* s, omnirt_graph* graph) {
  (void)s;
  fake_clear(&graph->ops);
  free(graph);
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_list_op_sets(omnirt_backend_state* s, const omnirt_op_set** sets, size_t* count) {
  static omnirt_op_set kSets[] = {{"omnirt.fake", 1}};
  (void)s;
#if FAKE_BAD(FAKE_FIELD_OP_SET)
  kSets[0].name = fake_bad_text(OMNIRT_TEXT_MAX_IDENTIFIER);
#endif
  *sets = kSets;
  *count = 1;
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_list_ops(omnirt_backend_state* s, const omnirt_op_decl** ops, size_t* count) {
  static omnirt_op_decl kOps[] = {{"fake_copy", "omnirt.fake", 1, 1}, {"fake_copy", "omnirt.fake", 1, 1}};
  (void)s;
  *ops = kOps;
  *count = 1;
#if FAKE_BAD(FAKE_FIELD_OP_NAME)
  kOps[1].name = fake_bad_text(OMNIRT_TEXT_MAX_IDENTIFIER);
  *count = 2;
#endif
  return OMNIRT_STATUS_OK;
}

static size_t fake_bytes_of(const DLTensor* t) {
  size_t bytes = (size_t)((t->dtype.bits * t->dtype.lanes + 7) / 8);
  int32_t i;
  for (i = 0; i < t->ndim; ++i) bytes *= (size_t)t->shape[i];
  return bytes;
}

static omnirt_status fake_op_run(omnirt_backend_state* s, const char* name, const DLTensor* inputs,
                                 size_t num_inputs, DLTensor* outputs, size_t num_outputs,
                                 const omnirt_op_attr* attrs, size_t num_attrs, omnirt_stream* stream) {
  size_t bytes;
  (void)s;
  (void)attrs;
  (void)num_attrs;
  (void)stream; /* host memory: done before returning, which is in stream order */
  if (strcmp(name, "fake_copy") != 0) return fake_fail(OMNIRT_STATUS_NOT_FOUND, 0, "fake: no such op");
  if (num_inputs != 1 || num_outputs != 1) {
    return fake_fail(OMNIRT_STATUS_INVALID_ARGUMENT, 0, "fake_copy: takes 1 input and 1 output");
  }
  bytes = fake_bytes_of(&inputs[0]);
  if (bytes != fake_bytes_of(&outputs[0])) {
    return fake_fail(OMNIRT_STATUS_INVALID_ARGUMENT, 0, "fake_copy: the output's size differs from the input's");
  }
  memmove((char*)outputs[0].data + outputs[0].byte_offset, (const char*)inputs[0].data + inputs[0].byte_offset,
          bytes);
  return OMNIRT_STATUS_OK;
}
#ifdef OMNIRT_FEATURE_DEFAULT_STREAM
static omnirt_status fake_stream_get_default(omnirt_backend_state* s, int32_t device, omnirt_stream** out) {
  if (device < 0 || device >= s->devices) return fake_fail(OMNIRT_STATUS_OUT_OF_RANGE, 0, "fake: no such device");
  *out = s->defaults[device];
  return OMNIRT_STATUS_OK;
}
#endif
#endif /* !FAKE_MINIMAL */

#if FAKE_BAD(FAKE_FIELD_LIBRARY)
static omnirt_status fake_collectives_library(omnirt_backend_state* s, char* text, size_t capacity) {
  (void)s;
  fake_bad_buffer(text, capacity);
  return OMNIRT_STATUS_OK;
}
#endif

#ifdef FAKE_UNADVERTISED_SLOTS
/* What every optional slot points to: calling it is the host's bug. */
static void fake_trap(void) { abort(); }
/* Except collectives_library, which reports on its feature: the host asks it
 * why a communicator cannot be made while the bit is clear. */
static omnirt_status fake_no_collectives_library(omnirt_backend_state* s, char* text, size_t capacity) {
  (void)s;
  if (capacity > 0) text[0] = '\0';
  return fake_fail(OMNIRT_STATUS_UNAVAILABLE, 0, "fake: no collective library here");
}
#endif

#ifdef FAKE_GARBAGE_SLOT
#define FAKE_INTO_LIBC 1
#define FAKE_INTO_DATA 2
#define FAKE_INTO_NOWHERE 3
static void* fake_garbage_address(void) {
#if FAKE_GARBAGE_SLOT == FAKE_INTO_LIBC
  return (void*)&abort;
#elif FAKE_GARBAGE_SLOT == FAKE_INTO_DATA
  static int data_word;
  return &data_word;
#else
  return (void*)(uintptr_t)0x3000; /* below mmap_min_addr: never mapped */
#endif
}
#endif

#ifdef FAKE_MODULES
/* ---- modules ------------------------------------------------------------ */

struct omnirt_executable {
  int32_t device;
  double run_ms; /* how long a run takes on its stream */
};

/* A run's output, in memory counted like device memory. */
typedef struct fake_output {
  DLManagedTensor managed;
  omnirt_backend_state* state;
  int64_t shape[8];
} fake_output;

static void fake_output_delete(DLManagedTensor* self) {
  fake_output* out = (fake_output*)self->manager_ctx;
  if (out->managed.dl_tensor.data != NULL) {
    pthread_mutex_lock(&out->state->lock);
    fake_release(out->state, out->managed.dl_tensor.data);
    pthread_mutex_unlock(&out->state->lock);
  }
  free(out);
}

static omnirt_status fake_module_load(omnirt_backend_state* s, int32_t device, const omnirt_module_source* source,
                                      int32_t tier, const char* tag, omnirt_executable** out) {
  char text[256];
  size_t n;
  const char* field;
  char* end = NULL;
  double run_ms = 0;
  (void)s;
  (void)tier;
  (void)tag;
  if (strcmp(source->format, "fake") != 0) {
    return fake_fail(OMNIRT_STATUS_NOT_SUPPORTED, 0, "fake: loads module format 'fake' only");
  }
  if (source->data != NULL) {
    n = source->size < sizeof text - 1 ? source->size : sizeof text - 1;
    memcpy(text, source->data, n);
  } else {
    FILE* file = fopen(source->path, "rb");
    if (file == NULL) return fake_fail(OMNIRT_STATUS_NOT_FOUND, errno, "fake: cannot open the module file");
    n = fread(text, 1, sizeof text - 1, file);
    fclose(file);
  }
  text[n] = '\0';
  field = strstr(text, "run_ms=");
  if (field != NULL) run_ms = strtod(field + 7, &end);
  if (field != NULL && (end == field + 7 || !(run_ms >= 0))) {
    return fake_fail(OMNIRT_STATUS_INVALID_ARGUMENT, 0, "fake: run_ms must be a number of milliseconds >= 0");
  }
  *out = (omnirt_executable*)calloc(1, sizeof(omnirt_executable));
  if (*out == NULL) return fake_fail(OMNIRT_STATUS_OUT_OF_MEMORY, ENOMEM, "fake: out of memory");
  (*out)->device = device;
  (*out)->run_ms = run_ms;
  return OMNIRT_STATUS_OK;
}

/* Writes the output at once, then enqueues the run's time on the stream. */
static omnirt_status fake_executable_run(omnirt_backend_state* s, omnirt_executable* exe, const DLTensor* inputs,
                                         size_t num_inputs, omnirt_stream* stream, DLManagedTensor** outputs,
                                         size_t capacity, size_t* num_outputs) {
  const DLTensor* in = &inputs[0];
  fake_output* out;
  const float* src;
  float* dst;
  size_t count = 1, i;
  omnirt_status status;
  if (num_inputs != 1 || in->dtype.code != kDLFloat || in->dtype.bits != 32 || in->dtype.lanes != 1 ||
      in->ndim > 8) {
    return fake_fail(OMNIRT_STATUS_INVALID_ARGUMENT, 0,
                     "fake: a fake module takes one contiguous float32 input of at most 8 dimensions");
  }
  if (stream == NULL) stream = s->defaults[exe->device];
  if (stream->capturing) return fake_fail(OMNIRT_STATUS_NOT_SUPPORTED, 0, "fake: runs cannot be captured");
  *num_outputs = 1;
  if (capacity < 1) return OMNIRT_STATUS_OUT_OF_RANGE;
  for (i = 0; i < (size_t)in->ndim; ++i) count *= (size_t)in->shape[i];
  out = (fake_output*)calloc(1, sizeof(fake_output));
  if (out == NULL) return fake_fail(OMNIRT_STATUS_OUT_OF_MEMORY, ENOMEM, "fake: out of memory");
  pthread_mutex_lock(&s->lock);
  status = fake_malloc_locked(s, count * sizeof(float), &out->managed.dl_tensor.data);
  pthread_mutex_unlock(&s->lock);
  if (status != OMNIRT_STATUS_OK) {
    free(out);
    return status;
  }
  src = (const float*)((const char*)in->data + in->byte_offset);
  dst = (float*)out->managed.dl_tensor.data;
  for (i = 0; i < count; ++i) dst[i] = 2.0f * src[i];
  for (i = 0; i < (size_t)in->ndim; ++i) out->shape[i] = in->shape[i];
  out->managed.dl_tensor.device = in->device;
  out->managed.dl_tensor.ndim = in->ndim;
  out->managed.dl_tensor.dtype = in->dtype;
  out->managed.dl_tensor.shape = out->shape;
  out->managed.manager_ctx = out;
  out->managed.deleter = fake_output_delete;
  out->state = s;
  status = fake_enqueue_timed(s, stream, FAKE_OP_BUSY, NULL, NULL, 0, 0, exe->run_ms);
  if (status != OMNIRT_STATUS_OK) {
    fake_output_delete(&out->managed);
    return status;
  }
  outputs[0] = &out->managed;
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_executable_destroy(omnirt_backend_state* s, omnirt_executable* exe) {
  (void)s;
  free(exe);
  return OMNIRT_STATUS_OK;
}
#endif /* FAKE_MODULES */

/* ---- lifecycle and discovery -------------------------------------------- */

static void fake_destroy(omnirt_backend_state* s);

static omnirt_status fake_create(const omnirt_backend_create_args* args, omnirt_backend_state** out) {
  FAKE_FAULT_AT(FAKE_IN_CREATE);
#if FAKE_BAD(FAKE_FIELD_LOG)
  g_host->log(OMNIRT_LOG_ERROR, FAKE_NAME, fake_bad_text(OMNIRT_TEXT_MAX_MESSAGE));
#endif
#if FAKE_BAD(FAKE_FIELD_ERROR)
  (void)args;
  (void)out;
  return fake_fail(OMNIRT_STATUS_UNAVAILABLE, 7, fake_bad_text(OMNIRT_TEXT_MAX_MESSAGE));
#elif defined(FAKE_CREATE_FAILS)
  (void)args;
  (void)out;
  return fake_fail(OMNIRT_STATUS_UNAVAILABLE, 7, "fake: create refused on purpose");
#else
  int32_t devices = 1;
  size_t i;
  omnirt_backend_state* s;
  for (i = 0; i < args->num_options; ++i) {
    if (strcmp(args->option_keys[i], "devices") == 0) {
      char* end = NULL;
      long value = strtol(args->option_values[i], &end, 10);
      if (end == args->option_values[i] || *end != '\0' || value < 0 || value > 64) {
        return fake_fail(OMNIRT_STATUS_INVALID_ARGUMENT, 0, "fake: option 'devices' must be a number in 0..64");
      }
      devices = (int32_t)value;
    }
  }
  s = (omnirt_backend_state*)calloc(1, sizeof(omnirt_backend_state));
  if (s == NULL) return fake_fail(OMNIRT_STATUS_OUT_OF_MEMORY, ENOMEM, "fake: out of memory");
  pthread_mutex_init(&s->lock, NULL);
  s->devices = devices;
  s->defaults = (omnirt_stream**)calloc((size_t)devices + 1, sizeof(omnirt_stream*));
  for (i = 0; s->defaults != NULL && i < (size_t)devices; ++i) {
    omnirt_stream* stream = (omnirt_stream*)calloc(1, sizeof(omnirt_stream));
    if (stream == NULL) break;
    stream->device = (int32_t)i;
    stream->is_default = 1;
    stream->next = s->streams;
    s->streams = stream;
    s->defaults[i] = stream;
  }
  if (s->defaults == NULL || i < (size_t)devices) {
    fake_destroy(s);
    return fake_fail(OMNIRT_STATUS_OUT_OF_MEMORY, ENOMEM, "fake: out of memory");
  }
  *out = s;
  {
    char message[64];
    snprintf(message, sizeof message, "fake: created with %d device(s)", (int)devices);
    g_host->log(OMNIRT_LOG_DEBUG, FAKE_NAME, message);
  }
  return OMNIRT_STATUS_OK;
#endif
}

static void fake_destroy(omnirt_backend_state* s) {
  if (s == NULL) return;
  while (s->streams != NULL) {
    omnirt_stream* next = s->streams->next;
    fake_flush_locked(s, s->streams);
    fake_clear(&s->streams->captured);
    free(s->streams);
    s->streams = next;
  }
  free(s->defaults);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

static omnirt_status fake_is_available(omnirt_backend_state* s, int32_t* available, char* reason,
                                       size_t capacity) {
  (void)s;
  FAKE_FAULT_AT(FAKE_IN_AVAILABLE);
#if FAKE_BAD(FAKE_FIELD_REASON)
  *available = 0;
  fake_bad_buffer(reason, capacity);
#elif defined(FAKE_MULTIBYTE_REASON)
  {
    char text[1 + 600 * 2 + 1] = "x";
    int i;
    for (i = 0; i < 600; ++i) strcat(text, "\xC3\xA9"); /* é */
    *available = 0;
    snprintf(reason, capacity, "%s", text); /* cuts bytes, not characters */
  }
#elif defined(FAKE_UNAVAILABLE)
  *available = 0;
  snprintf(reason, capacity, "fake: no fake device here (set FAKE_DEVICE=1)");
#else
  (void)reason;
  (void)capacity;
  *available = 1;
#endif
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_get_capabilities(omnirt_backend_state* s, omnirt_capabilities* caps) {
  omnirt_capabilities full;
  memset(&full, 0, sizeof full);
  full.struct_size = sizeof full;
  full.dl_device_type = kDLCPU;
  full.device_count = s->devices;
#if FAKE_BAD(FAKE_FIELD_VENDOR)
  full.vendor = fake_bad_text(OMNIRT_TEXT_MAX_TAG);
#else
  full.vendor = "fake";
#endif
  full.dtypes = (1u << OMNIRT_DTYPE_F32) | (1u << OMNIRT_DTYPE_F16) | (1u << OMNIRT_DTYPE_I32);
#ifndef FAKE_MINIMAL
  full.features = OMNIRT_FEATURE_HOST_ALLOC | OMNIRT_FEATURE_ASYNC_COPY | OMNIRT_FEATURE_STREAM_ORDERED_ALLOC |
                  OMNIRT_FEATURE_STREAMS | OMNIRT_FEATURE_EVENTS | OMNIRT_FEATURE_EVENT_TIMING |
                  OMNIRT_FEATURE_STREAM_WAIT_EVENT | OMNIRT_FEATURE_MEM_INFO | OMNIRT_FEATURE_MEMORY_STATS |
                  OMNIRT_FEATURE_GRAPH_CAPTURE | OMNIRT_FEATURE_NAMED_OPS;
#ifdef OMNIRT_FEATURE_DEFAULT_STREAM
  full.features |= OMNIRT_FEATURE_DEFAULT_STREAM;
#endif
#endif
#ifdef FAKE_MODULES
  {
    static const char* const kFormats[] = {"fake"};
    full.features |= OMNIRT_FEATURE_MODULES;
    full.module_formats = kFormats;
    full.num_module_formats = 1;
  }
#endif
#if FAKE_BAD(FAKE_FIELD_FORMAT)
  {
    static const char* formats[1];
    formats[0] = fake_bad_text(OMNIRT_TEXT_MAX_TAG);
    full.module_formats = formats;
    full.num_module_formats = 1;
  }
#endif
#if FAKE_BAD(FAKE_FIELD_LIBRARY)
  full.features |= OMNIRT_FEATURE_COLLECTIVES;
#endif
#ifdef FAKE_GARBAGE_BIT
  full.features |= OMNIRT_FEATURE_MEM_INFO;
#endif
#ifdef FAKE_STRAY_FEATURE_BITS
  full.features |= ~(uint64_t)0 << 14;
#endif
  FAKE_COPY_SIZED(caps, full);
#ifdef FAKE_STRAY_FEATURE_BITS
  if (caps->struct_size > sizeof full) {
    memset((char*)caps + sizeof full, 0xab, caps->struct_size - sizeof full);
  }
#endif
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_get_device_count(omnirt_backend_state* s, int32_t* count) {
  *count = s->devices;
  return OMNIRT_STATUS_OK;
}

static omnirt_status fake_get_device_info(omnirt_backend_state* s, int32_t device, omnirt_device_info* info) {
  omnirt_device_info full;
  (void)s;
  memset(&full, 0, sizeof full);
  full.struct_size = sizeof full;
  full.index = device;
  full.dl_device_type = kDLCPU;
  snprintf(full.name, sizeof full.name, "Fake Device %d", (int)device);
#if FAKE_BAD(FAKE_FIELD_DEVICE_NAME)
  fake_bad_buffer(full.name, sizeof full.name);
#endif
  snprintf(full.arch, sizeof full.arch, "fake64");
  full.total_memory_bytes = FAKE_MEMORY_LIMIT;
  full.compute_units = 4;
  FAKE_COPY_SIZED(info, full);
  return OMNIRT_STATUS_OK;
}

/* ---- vtable and entry --------------------------------------------------- */

static omnirt_status fake_future_slot(omnirt_backend_state* s) {
  (void)s;
  return OMNIRT_STATUS_INTERNAL; /* a host of this ABI never knows to call it */
}

typedef struct fake_vtable {
  omnirt_backend_vtable base;
#ifdef FAKE_EXTRA_SLOTS
  omnirt_status (*future_slot_a)(omnirt_backend_state* state);
  omnirt_status (*future_slot_b)(omnirt_backend_state* state);
#endif
} fake_vtable;

#ifndef FAKE_STRUCT_SIZE
#define FAKE_STRUCT_SIZE sizeof(fake_vtable)
#endif

static void fake_fill_vtable(fake_vtable* v) {
  omnirt_backend_vtable* b = &v->base;
  memset(v, 0, sizeof *v);
  b->struct_size = FAKE_STRUCT_SIZE;
  b->abi_version = FAKE_ABI_VERSION;
#if FAKE_BAD(FAKE_FIELD_NAME)
  b->name = fake_bad_text(OMNIRT_TEXT_MAX_NAME);
#else
  b->name = FAKE_NAME;
#endif
#if FAKE_BAD(FAKE_FIELD_VERSION)
  b->plugin_version = fake_bad_text(OMNIRT_TEXT_MAX_VERSION);
#else
  b->plugin_version = FAKE_VERSION;
#endif
  b->create = fake_create;
  b->destroy = fake_destroy;
  b->is_available = fake_is_available;
  b->get_capabilities = fake_get_capabilities;
  b->get_device_count = fake_get_device_count;
  b->get_device_info = fake_get_device_info;
  b->malloc_device = fake_malloc_device;
  b->free_device = fake_free_device;
  b->memcpy_sync = fake_memcpy_sync;
#ifndef FAKE_NULL_REQUIRED_SLOT
  b->memset_sync = fake_memset_sync;
#endif
  b->device_synchronize = fake_device_synchronize;
#ifndef FAKE_MINIMAL
  b->malloc_host = fake_malloc_host;
  b->free_host = fake_free_host;
  b->malloc_async = fake_malloc_async;
  b->free_async = fake_free_async;
  b->memcpy_async = fake_memcpy_async;
  b->memset_async = fake_memset_async;
  b->mem_get_info = fake_mem_get_info;
  b->memory_stats = fake_memory_stats;
  b->reset_memory_stats = fake_reset_memory_stats;
  b->stream_create = fake_stream_create;
  b->stream_destroy = fake_stream_destroy;
  b->stream_synchronize = fake_stream_synchronize;
  b->stream_query = fake_stream_query;
  b->stream_wait_event = fake_stream_wait_event;
  b->event_create = fake_event_create;
  b->event_destroy = fake_event_destroy;
  b->event_record = fake_event_record;
  b->event_query = fake_event_query;
  b->event_synchronize = fake_event_synchronize;
  b->event_elapsed_time = fake_event_elapsed_time;
  b->stream_begin_capture = fake_stream_begin_capture;
  b->stream_end_capture = fake_stream_end_capture;
  b->graph_launch = fake_graph_launch;
  b->graph_destroy = fake_graph_destroy;
  b->list_op_sets = fake_list_op_sets;
  b->list_ops = fake_list_ops;
  b->op_run = fake_op_run;
#ifdef OMNIRT_FEATURE_DEFAULT_STREAM
  b->stream_get_default = fake_stream_get_default;
#endif
#endif
#ifdef FAKE_MODULES
  b->module_load = fake_module_load;
  b->executable_run = fake_executable_run;
  b->executable_destroy = fake_executable_destroy;
#endif
#if FAKE_BAD(FAKE_FIELD_LIBRARY)
  b->collectives_library = fake_collectives_library;
#endif
#ifdef FAKE_GARBAGE_SLOT
  {
    void* garbage = fake_garbage_address();
    memcpy(&b->mem_get_info, &garbage, sizeof garbage);
  }
#endif
#ifdef FAKE_UNADVERTISED_SLOTS
  {
    void (*trap)(void) = fake_trap;
    size_t at;
    for (at = offsetof(omnirt_backend_vtable, malloc_host); at < sizeof(omnirt_backend_vtable); at += sizeof trap) {
      memcpy((char*)b + at, &trap, sizeof trap);
    }
    b->collectives_library = fake_no_collectives_library;
  }
#endif
#ifdef FAKE_EXTRA_SLOTS
  v->future_slot_a = fake_future_slot;
  v->future_slot_b = fake_future_slot;
#endif
}

#ifndef FAKE_NO_ENTRY
OMNIRT_EXTERN_C_BEGIN
OMNIRT_EXPORT const omnirt_backend_vtable* omnirt_backend_entry(const omnirt_backend_entry_args* args) {
  static fake_vtable vtable;
  g_host = args->host;
  FAKE_FAULT_AT(FAKE_IN_ENTRY);
  fake_fill_vtable(&vtable);
#if defined(FAKE_THROW_IN_ENTRY)
  FAKE_THROW("fake: the entry point threw");
#elif defined(FAKE_ENTRY_RETURNS_NULL)
  g_host->set_error(OMNIRT_STATUS_INCOMPATIBLE, 42, "fake: this plugin refuses every host");
  return NULL;
#else
  return &vtable.base;
#endif
}
OMNIRT_EXTERN_C_END
#endif
