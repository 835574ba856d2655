/*
 * The fake plugin zoo: one source, many plugins, one misbehaviour each
 * (Vulkan-Loader style). Built without switches it is a good backend: host
 * memory from malloc with honest statistics, streams whose async work really
 * is deferred until a synchronization point, events with timing, and graph
 * capture — enough for the host's routing to be tested end to end.
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
 *                             ABI 1.0's (for the plugins built against the
 *                             frozen 1.0 headers in tests/abi/v1_0)
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
 *                             no feature bit is set: none may ever be called
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

enum fake_op_kind { FAKE_OP_MEMSET, FAKE_OP_MEMCPY, FAKE_OP_FREE };

/* One piece of deferred work on a stream or in a graph. */
typedef struct fake_op {
  int kind;
  void* dst;
  const void* src;
  int32_t value;
  size_t size;
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
  struct omnirt_stream* streams; /* every live stream, for device_synchronize */
};

struct omnirt_stream {
  int32_t device;
  fake_queue pending;  /* enqueued, not yet run */
  int capturing;
  fake_queue captured; /* work recorded while capturing */
  uint64_t enqueued, completed;
  struct omnirt_stream* next;
};

struct omnirt_event {
  struct omnirt_stream* stream; /* where it was recorded; NULL if never */
  uint64_t target;              /* completes when stream->completed reaches it */
  int timed;
  struct timespec completed_at;
};

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

static omnirt_status fake_memcpy_sync(omnirt_backend_state* s, void* dst, const void* src, size_t size,
                                      int32_t kind) {
  (void)s;
  (void)kind;
  if (size > 0) memmove(dst, src, size);
  return OMNIRT_STATUS_OK;
}

#ifndef FAKE_NULL_REQUIRED_SLOT
static omnirt_status fake_memset_sync(omnirt_backend_state* s, void* ptr, int32_t value, size_t size) {
  (void)s;
#ifdef FAKE_THROW_IN_SLOT
  if (size > 0) FAKE_THROW("fake: memset_sync threw");
#endif
  if (size > 0) memset(ptr, value, size);
  return OMNIRT_STATUS_OK;
}
#endif

/* ---- deferred work ------------------------------------------------------ */

static omnirt_status fake_push(fake_queue* queue, int kind, void* dst, const void* src, int32_t value,
                               size_t size) {
  fake_op* op = (fake_op*)calloc(1, sizeof(fake_op));
  if (op == NULL) return fake_fail(OMNIRT_STATUS_OUT_OF_MEMORY, ENOMEM, "fake: cannot queue work");
  op->kind = kind;
  op->dst = dst;
  op->src = src;
  op->value = value;
  op->size = size;
  if (queue->tail != NULL) {
    queue->tail->next = op;
  } else {
    queue->head = op;
  }
  queue->tail = op;
  return OMNIRT_STATUS_OK;
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
static omnirt_status fake_enqueue(omnirt_backend_state* s, omnirt_stream* stream, int kind, void* dst,
                                  const void* src, int32_t value, size_t size) {
  omnirt_status status;
  pthread_mutex_lock(&s->lock);
  if (stream->capturing) {
    status = fake_push(&stream->captured, kind, dst, src, value, size);
  } else {
    status = fake_push(&stream->pending, kind, dst, src, value, size);
    if (status == OMNIRT_STATUS_OK) stream->enqueued += 1;
  }
  pthread_mutex_unlock(&s->lock);
  return status;
}

static void fake_flush_locked(omnirt_backend_state* s, omnirt_stream* stream) {
  fake_op* op;
  for (op = stream->pending.head; op != NULL; op = op->next) {
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
static int fake_event_done_locked(omnirt_event* event) {
  int done = event->stream == NULL || event->stream->completed >= event->target;
  if (done && event->stream != NULL && !event->timed) {
    clock_gettime(CLOCK_MONOTONIC, &event->completed_at);
    event->timed = 1;
  }
  return done;
}

static omnirt_status fake_stream_wait_event(omnirt_backend_state* s, omnirt_stream* stream, omnirt_event* event) {
  (void)stream; /* work on `stream` is deferred anyway; finishing the event's stream orders it */
  pthread_mutex_lock(&s->lock);
  if (event->stream != NULL) fake_flush_locked(s, event->stream);
  fake_event_done_locked(event);
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
  event->timed = 0;
  fake_event_done_locked(event);
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
  fake_event_done_locked(event);
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
    *milliseconds = (float)((double)(end->completed_at.tv_sec - start->completed_at.tv_sec) * 1e3 +
                            (double)(end->completed_at.tv_nsec - start->completed_at.tv_nsec) / 1e6);
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
    status = fake_enqueue(s, stream, op->kind, op->dst, op->src, op->value, op->size);
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

/* ---- lifecycle and discovery -------------------------------------------- */

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
