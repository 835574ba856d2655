/*
 * Freezes the ABI 1.0 layouts (LP64). A field may only ever be appended: if
 * one of these fails, an existing field moved and every plugin or embedder
 * built against 1.0 would break. New fields get new lines, old lines never
 * change.
 */
#include <omnirt/omnirt.h>
#include <stddef.h>
#include <stdint.h>

#define OMNIRT_FROZEN(type, field, offset) \
  _Static_assert(offsetof(type, field) == (offset), #type "." #field " moved")
#define OMNIRT_FROZEN_SIZE(type, size) \
  _Static_assert(sizeof(type) >= (size), #type " shrank below its 1.0 size")

#if UINTPTR_MAX == UINT64_MAX
OMNIRT_FROZEN_SIZE(omnirt_capabilities, 56);
OMNIRT_FROZEN(omnirt_capabilities, struct_size, 0);
OMNIRT_FROZEN(omnirt_capabilities, dl_device_type, 8);
OMNIRT_FROZEN(omnirt_capabilities, device_count, 12);
OMNIRT_FROZEN(omnirt_capabilities, features, 16);
OMNIRT_FROZEN(omnirt_capabilities, dtypes, 24);
OMNIRT_FROZEN(omnirt_capabilities, vendor, 32);
OMNIRT_FROZEN(omnirt_capabilities, module_formats, 40);
OMNIRT_FROZEN(omnirt_capabilities, num_module_formats, 48);
OMNIRT_FROZEN_SIZE(omnirt_device_info, 192);
OMNIRT_FROZEN(omnirt_device_info, index, 8);
OMNIRT_FROZEN(omnirt_device_info, dl_device_type, 12);
OMNIRT_FROZEN(omnirt_device_info, name, 16);
OMNIRT_FROZEN(omnirt_device_info, arch, 144);
OMNIRT_FROZEN(omnirt_device_info, total_memory_bytes, 176);
OMNIRT_FROZEN(omnirt_device_info, compute_units, 184);
OMNIRT_FROZEN_SIZE(omnirt_memory_stats, 56);
OMNIRT_FROZEN(omnirt_memory_stats, known, 8);
OMNIRT_FROZEN(omnirt_memory_stats, allocated_bytes, 16);
OMNIRT_FROZEN(omnirt_memory_stats, peak_bytes, 24);
OMNIRT_FROZEN(omnirt_memory_stats, reserved_bytes, 32);
OMNIRT_FROZEN(omnirt_memory_stats, alloc_count, 40);
OMNIRT_FROZEN(omnirt_memory_stats, free_count, 48);
OMNIRT_FROZEN_SIZE(omnirt_module_source, 40);
OMNIRT_FROZEN(omnirt_module_source, format, 8);
OMNIRT_FROZEN(omnirt_module_source, data, 16);
OMNIRT_FROZEN(omnirt_module_source, size, 24);
OMNIRT_FROZEN(omnirt_module_source, path, 32);
OMNIRT_FROZEN_SIZE(omnirt_op_set, 16);
OMNIRT_FROZEN_SIZE(omnirt_op_decl, 24);
OMNIRT_FROZEN_SIZE(omnirt_op_attr, 16);
OMNIRT_FROZEN_SIZE(omnirt_host_services, 32);
OMNIRT_FROZEN(omnirt_host_services, host_abi_version, 8);
OMNIRT_FROZEN(omnirt_host_services, set_error, 16);
OMNIRT_FROZEN(omnirt_host_services, log, 24);
OMNIRT_FROZEN_SIZE(omnirt_backend_entry_args, 24);
OMNIRT_FROZEN(omnirt_backend_entry_args, host_abi_min, 8);
OMNIRT_FROZEN(omnirt_backend_entry_args, host_abi_max, 12);
OMNIRT_FROZEN(omnirt_backend_entry_args, host, 16);
OMNIRT_FROZEN_SIZE(omnirt_backend_create_args, 32);
OMNIRT_FROZEN(omnirt_backend_create_args, option_keys, 8);
OMNIRT_FROZEN(omnirt_backend_create_args, option_values, 16);
OMNIRT_FROZEN(omnirt_backend_create_args, num_options, 24);
OMNIRT_FROZEN_SIZE(omnirt_error_info, 40);
OMNIRT_FROZEN(omnirt_error_info, status, 8);
OMNIRT_FROZEN(omnirt_error_info, native_code, 16);
OMNIRT_FROZEN(omnirt_error_info, message, 24);
OMNIRT_FROZEN(omnirt_error_info, backend, 32);
OMNIRT_FROZEN_SIZE(omnirt_host_options, 40);
OMNIRT_FROZEN(omnirt_host_options, config_path, 8);
OMNIRT_FROZEN(omnirt_host_options, plugin_paths, 16);
OMNIRT_FROZEN(omnirt_host_options, num_plugin_paths, 24);
OMNIRT_FROZEN(omnirt_host_options, flags, 32);
OMNIRT_FROZEN_SIZE(omnirt_search_dir, 32);
OMNIRT_FROZEN(omnirt_search_dir, path, 8);
OMNIRT_FROZEN(omnirt_search_dir, source, 16);
OMNIRT_FROZEN(omnirt_search_dir, searched, 20);
OMNIRT_FROZEN(omnirt_search_dir, note, 24);
OMNIRT_FROZEN_SIZE(omnirt_candidate, 72);
OMNIRT_FROZEN(omnirt_candidate, path, 8);
OMNIRT_FROZEN(omnirt_candidate, real_path, 16);
OMNIRT_FROZEN(omnirt_candidate, source, 24);
OMNIRT_FROZEN(omnirt_candidate, stage, 28);
OMNIRT_FROZEN(omnirt_candidate, loaded, 32);
OMNIRT_FROZEN(omnirt_candidate, status, 36);
OMNIRT_FROZEN(omnirt_candidate, reason, 40);
OMNIRT_FROZEN(omnirt_candidate, backend_name, 48);
OMNIRT_FROZEN(omnirt_candidate, plugin_abi_version, 56);
OMNIRT_FROZEN(omnirt_candidate, load_time_ns, 64);
OMNIRT_FROZEN_SIZE(omnirt_backend_info, 64);
OMNIRT_FROZEN(omnirt_backend_info, name, 8);
OMNIRT_FROZEN(omnirt_backend_info, plugin_version, 16);
OMNIRT_FROZEN(omnirt_backend_info, abi_version, 24);
OMNIRT_FROZEN(omnirt_backend_info, path, 32);
OMNIRT_FROZEN(omnirt_backend_info, available, 40);
OMNIRT_FROZEN(omnirt_backend_info, unavailable_reason, 48);
OMNIRT_FROZEN(omnirt_backend_info, priority, 56);
OMNIRT_FROZEN_SIZE(omnirt_backend_vtable, 360);
OMNIRT_FROZEN(omnirt_backend_vtable, abi_version, 8);
OMNIRT_FROZEN(omnirt_backend_vtable, name, 16);
OMNIRT_FROZEN(omnirt_backend_vtable, plugin_version, 24);
OMNIRT_FROZEN(omnirt_backend_vtable, create, 32);
OMNIRT_FROZEN(omnirt_backend_vtable, destroy, 40);
OMNIRT_FROZEN(omnirt_backend_vtable, is_available, 48);
OMNIRT_FROZEN(omnirt_backend_vtable, get_capabilities, 56);
OMNIRT_FROZEN(omnirt_backend_vtable, get_device_count, 64);
OMNIRT_FROZEN(omnirt_backend_vtable, get_device_info, 72);
OMNIRT_FROZEN(omnirt_backend_vtable, malloc_device, 80);
OMNIRT_FROZEN(omnirt_backend_vtable, free_device, 88);
OMNIRT_FROZEN(omnirt_backend_vtable, memcpy_sync, 96);
OMNIRT_FROZEN(omnirt_backend_vtable, memset_sync, 104);
OMNIRT_FROZEN(omnirt_backend_vtable, device_synchronize, 112);
OMNIRT_FROZEN(omnirt_backend_vtable, malloc_host, 120);
OMNIRT_FROZEN(omnirt_backend_vtable, free_host, 128);
OMNIRT_FROZEN(omnirt_backend_vtable, malloc_async, 136);
OMNIRT_FROZEN(omnirt_backend_vtable, free_async, 144);
OMNIRT_FROZEN(omnirt_backend_vtable, memcpy_async, 152);
OMNIRT_FROZEN(omnirt_backend_vtable, memset_async, 160);
OMNIRT_FROZEN(omnirt_backend_vtable, mem_get_info, 168);
OMNIRT_FROZEN(omnirt_backend_vtable, memory_stats, 176);
OMNIRT_FROZEN(omnirt_backend_vtable, reset_memory_stats, 184);
OMNIRT_FROZEN(omnirt_backend_vtable, stream_create, 192);
OMNIRT_FROZEN(omnirt_backend_vtable, stream_destroy, 200);
OMNIRT_FROZEN(omnirt_backend_vtable, stream_synchronize, 208);
OMNIRT_FROZEN(omnirt_backend_vtable, stream_query, 216);
OMNIRT_FROZEN(omnirt_backend_vtable, stream_wait_event, 224);
OMNIRT_FROZEN(omnirt_backend_vtable, event_create, 232);
OMNIRT_FROZEN(omnirt_backend_vtable, event_destroy, 240);
OMNIRT_FROZEN(omnirt_backend_vtable, event_record, 248);
OMNIRT_FROZEN(omnirt_backend_vtable, event_query, 256);
OMNIRT_FROZEN(omnirt_backend_vtable, event_synchronize, 264);
OMNIRT_FROZEN(omnirt_backend_vtable, event_elapsed_time, 272);
OMNIRT_FROZEN(omnirt_backend_vtable, stream_begin_capture, 280);
OMNIRT_FROZEN(omnirt_backend_vtable, stream_end_capture, 288);
OMNIRT_FROZEN(omnirt_backend_vtable, graph_launch, 296);
OMNIRT_FROZEN(omnirt_backend_vtable, graph_destroy, 304);
OMNIRT_FROZEN(omnirt_backend_vtable, module_load, 312);
OMNIRT_FROZEN(omnirt_backend_vtable, executable_run, 320);
OMNIRT_FROZEN(omnirt_backend_vtable, executable_destroy, 328);
OMNIRT_FROZEN(omnirt_backend_vtable, list_op_sets, 336);
OMNIRT_FROZEN(omnirt_backend_vtable, list_ops, 344);
OMNIRT_FROZEN(omnirt_backend_vtable, op_run, 352);
OMNIRT_FROZEN_SIZE(omnirt_wrap_options, 32);
OMNIRT_FROZEN(omnirt_wrap_options, device, 8);
OMNIRT_FROZEN(omnirt_wrap_options, flags, 12);
OMNIRT_FROZEN(omnirt_wrap_options, attrs, 16);
OMNIRT_FROZEN(omnirt_wrap_options, num_attrs, 24);
OMNIRT_FROZEN_SIZE(omnirt_attempt, 40);
OMNIRT_FROZEN(omnirt_attempt, tier, 8);
OMNIRT_FROZEN(omnirt_attempt, ok, 12);
OMNIRT_FROZEN(omnirt_attempt, selected, 16);
OMNIRT_FROZEN(omnirt_attempt, status, 20);
OMNIRT_FROZEN(omnirt_attempt, reason, 24);
OMNIRT_FROZEN(omnirt_attempt, elapsed_ns, 32);

/* Appended in 1.1, frozen from then on. */
OMNIRT_FROZEN(omnirt_capabilities, unavailable_module_formats, 56);
OMNIRT_FROZEN(omnirt_capabilities, num_unavailable_module_formats, 64);
OMNIRT_FROZEN(omnirt_module_format_unavailable, reason, 8);
OMNIRT_FROZEN(omnirt_host_options, vetting_cache_dir, 40);
OMNIRT_FROZEN(omnirt_host_options, vetting, 48);
OMNIRT_FROZEN(omnirt_host_options, vetting_time_limit_ms, 52);
OMNIRT_FROZEN_SIZE(omnirt_host_options, 56);
OMNIRT_FROZEN(omnirt_candidate, vet_outcome, 72);
OMNIRT_FROZEN(omnirt_candidate, vet_cached, 76);
OMNIRT_FROZEN(omnirt_candidate, vet_time_ns, 80);
OMNIRT_FROZEN(omnirt_candidate, skipped, 88);
OMNIRT_FROZEN_SIZE(omnirt_candidate, 96);
#endif

int main(void) { return 0; }
