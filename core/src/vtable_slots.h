// The slots of omnirt_backend_vtable as the host checks them at load: which
// are required, and the capability bit each optional one belongs to — the
// one table of slot -> bit — and the checks that use it.
#ifndef OMNIRT_CORE_VTABLE_SLOTS_H_
#define OMNIRT_CORE_VTABLE_SLOTS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "omnirt/backend.h"

namespace omnirt {
namespace slots {

/// One function-pointer slot of the vtable.
struct Slot {
  const char* name;
  size_t offset;
  /// The OMNIRT_FEATURE_* bit the slot belongs to; 0 for a required slot.
  uint64_t feature;
  /// Whether the slot is never called while its bit is clear. A slot that
  /// reports on its feature (collectives_library says why the collective
  /// library is missing) stays callable: that report is its job.
  bool gated;

  constexpr bool required() const noexcept { return feature == 0; }
};

#define OMNIRT_SLOT_REQUIRED(slot) Slot{#slot, offsetof(omnirt_backend_vtable, slot), 0, false}
#define OMNIRT_SLOT_OPTIONAL(slot, bit) \
  Slot{#slot, offsetof(omnirt_backend_vtable, slot), OMNIRT_FEATURE_##bit, true}
#define OMNIRT_SLOT_REPORT(slot, bit) \
  Slot{#slot, offsetof(omnirt_backend_vtable, slot), OMNIRT_FEATURE_##bit, false}
/// Every slot of the vtable, in declaration order, with the bit backend.h
/// names for it. A slot without a bit of its own belongs to the feature of
/// its group (list_op_sets to NAMED_OPS, the executable slots to MODULES).
inline constexpr Slot kVtableSlots[] = {
    OMNIRT_SLOT_REQUIRED(create),
    OMNIRT_SLOT_REQUIRED(destroy),
    OMNIRT_SLOT_REQUIRED(is_available),
    OMNIRT_SLOT_REQUIRED(get_capabilities),
    OMNIRT_SLOT_REQUIRED(get_device_count),
    OMNIRT_SLOT_REQUIRED(get_device_info),
    OMNIRT_SLOT_REQUIRED(malloc_device),
    OMNIRT_SLOT_REQUIRED(free_device),
    OMNIRT_SLOT_REQUIRED(memcpy_sync),
    OMNIRT_SLOT_REQUIRED(memset_sync),
    OMNIRT_SLOT_REQUIRED(device_synchronize),
    OMNIRT_SLOT_OPTIONAL(malloc_host, HOST_ALLOC),
    OMNIRT_SLOT_OPTIONAL(free_host, HOST_ALLOC),
    OMNIRT_SLOT_OPTIONAL(malloc_async, STREAM_ORDERED_ALLOC),
    OMNIRT_SLOT_OPTIONAL(free_async, STREAM_ORDERED_ALLOC),
    OMNIRT_SLOT_OPTIONAL(memcpy_async, ASYNC_COPY),
    OMNIRT_SLOT_OPTIONAL(memset_async, ASYNC_COPY),
    OMNIRT_SLOT_OPTIONAL(mem_get_info, MEM_INFO),
    OMNIRT_SLOT_OPTIONAL(memory_stats, MEMORY_STATS),
    OMNIRT_SLOT_OPTIONAL(reset_memory_stats, MEMORY_STATS),
    OMNIRT_SLOT_OPTIONAL(stream_create, STREAMS),
    OMNIRT_SLOT_OPTIONAL(stream_destroy, STREAMS),
    OMNIRT_SLOT_OPTIONAL(stream_synchronize, STREAMS),
    OMNIRT_SLOT_OPTIONAL(stream_query, STREAMS),
    OMNIRT_SLOT_OPTIONAL(stream_wait_event, STREAM_WAIT_EVENT),
    OMNIRT_SLOT_OPTIONAL(event_create, EVENTS),
    OMNIRT_SLOT_OPTIONAL(event_destroy, EVENTS),
    OMNIRT_SLOT_OPTIONAL(event_record, EVENTS),
    OMNIRT_SLOT_OPTIONAL(event_query, EVENTS),
    OMNIRT_SLOT_OPTIONAL(event_synchronize, EVENTS),
    OMNIRT_SLOT_OPTIONAL(event_elapsed_time, EVENT_TIMING),
    OMNIRT_SLOT_OPTIONAL(stream_begin_capture, GRAPH_CAPTURE),
    OMNIRT_SLOT_OPTIONAL(stream_end_capture, GRAPH_CAPTURE),
    OMNIRT_SLOT_OPTIONAL(graph_launch, GRAPH_CAPTURE),
    OMNIRT_SLOT_OPTIONAL(graph_destroy, GRAPH_CAPTURE),
    OMNIRT_SLOT_OPTIONAL(module_load, MODULES),
    OMNIRT_SLOT_OPTIONAL(executable_run, MODULES),
    OMNIRT_SLOT_OPTIONAL(executable_destroy, MODULES),
    OMNIRT_SLOT_OPTIONAL(list_op_sets, NAMED_OPS),
    OMNIRT_SLOT_OPTIONAL(list_ops, NAMED_OPS),
    OMNIRT_SLOT_OPTIONAL(op_run, NAMED_OPS),
    OMNIRT_SLOT_OPTIONAL(stream_get_default, DEFAULT_STREAM),
    OMNIRT_SLOT_OPTIONAL(output_name, OUTPUT_NAMES),
    OMNIRT_SLOT_OPTIONAL(comm_create, COLLECTIVES),
    OMNIRT_SLOT_OPTIONAL(comm_create_local, COLLECTIVES),
    OMNIRT_SLOT_OPTIONAL(comm_destroy, COLLECTIVES),
    OMNIRT_SLOT_OPTIONAL(all_reduce, COLLECTIVES),
    OMNIRT_SLOT_OPTIONAL(all_gather, COLLECTIVES),
    OMNIRT_SLOT_OPTIONAL(reduce_scatter, COLLECTIVES),
    OMNIRT_SLOT_OPTIONAL(broadcast, COLLECTIVES),
    OMNIRT_SLOT_OPTIONAL(send, COLLECTIVES),
    OMNIRT_SLOT_OPTIONAL(recv, COLLECTIVES),
    OMNIRT_SLOT_OPTIONAL(group_start, COLLECTIVES),
    OMNIRT_SLOT_OPTIONAL(group_end, COLLECTIVES),
    OMNIRT_SLOT_REPORT(collectives_library, COLLECTIVES),
    OMNIRT_SLOT_OPTIONAL(comm_get_async_error, COLLECTIVES),
    OMNIRT_SLOT_OPTIONAL(engine_prepare, ENGINE_PREPARE),
};
#undef OMNIRT_SLOT_REQUIRED
#undef OMNIRT_SLOT_OPTIONAL
#undef OMNIRT_SLOT_REPORT

// Every slot is in the table: after the header fields, the vtable is nothing
// but function pointers, and the table lists them in order.
namespace detail {
constexpr bool lists_every_slot() {
  size_t expected = offsetof(omnirt_backend_vtable, create);
  for (const Slot& slot : kVtableSlots) {
    if (slot.offset != expected) return false;
    expected += sizeof(void (*)());
  }
  return expected == sizeof(omnirt_backend_vtable);
}
}  // namespace detail
static_assert(detail::lists_every_slot(), "kVtableSlots must list every vtable slot, in order");

}  // namespace slots

/// The function pointer in `slot` of `vtable`, as an address.
const void* slot_address(const omnirt_backend_vtable& vtable, const slots::Slot& slot) noexcept;

/// Names of the required slots that are NULL.
std::vector<std::string_view> missing_required_slots(const omnirt_backend_vtable& vtable);

/// Sets to NULL every gated slot whose capability bit is not in `features`,
/// so that routed calls answer NOT_SUPPORTED without calling it.
void clear_unadvertised_slots(omnirt_backend_vtable* vtable, uint64_t features) noexcept;

}  // namespace omnirt

#endif  // OMNIRT_CORE_VTABLE_SLOTS_H_
