// C entry points that describe a backend: info, capabilities, devices, op sets.
// They work on unavailable backends too, so that omnirt-probe can show them.
#include "backend.h"
#include "error.h"
#include "omnirt/host.h"
#include "plugin_call.h"
#include "sized.h"

using omnirt::call_slot;
using omnirt::null_argument;
using omnirt::require_non_null;
using omnirt::sized_struct;
using omnirt::write_sized;
using V = omnirt_backend_vtable;

omnirt_status omnirt_backend_get_info(const omnirt_backend* backend, omnirt_backend_info* out) {
  constexpr const char* kCall = "omnirt_backend_get_info";
  if (backend == nullptr) return null_argument(kCall, "backend");
  auto full = sized_struct<omnirt_backend_info>();
  full.name = backend->name.c_str();
  full.plugin_version = backend->plugin_version.c_str();
  full.abi_version = backend->abi_version;
  full.path = backend->path.c_str();
  full.available = backend->available ? 1 : 0;
  full.unavailable_reason = backend->unavailable_reason.c_str();
  full.priority = backend->priority;
  return write_sized(out, full, kCall, "omnirt_backend_info");
}

omnirt_status omnirt_get_capabilities(omnirt_backend* backend, omnirt_capabilities* caps) {
  constexpr const char* kCall = "omnirt_get_capabilities";
  OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(caps, kCall, "caps"));
  // The plugin fills a full-size struct of the host's; the caller gets what it knows.
  auto full = sized_struct<omnirt_capabilities>();
  OMNIRT_RETURN_IF_ERROR(call_slot<&V::get_capabilities>(*backend, "get_capabilities", &full));
  full.struct_size = sizeof full;
  // Bits the plugin's ABI minor does not define are not features it has.
  full.features &= omnirt::features_known_to(backend->abi_version);
  if (full.vendor == nullptr) full.vendor = "";
  if (full.module_formats == nullptr) full.num_module_formats = 0;
  // A 1.0 plugin knows no such fields: whatever lies there is not its answer.
  if (full.unavailable_module_formats == nullptr || OMNIRT_VERSION_MINOR(backend->abi_version) == 0) {
    full.unavailable_module_formats = nullptr;
    full.num_unavailable_module_formats = 0;
  }
  return write_sized(caps, full, kCall, "omnirt_capabilities");
}

omnirt_status omnirt_get_device_count(omnirt_backend* backend, int32_t* count) {
  constexpr const char* kCall = "omnirt_get_device_count";
  OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(count, kCall, "count"));
  return omnirt::known_device_count(*backend, count);
}

omnirt_status omnirt_get_device_info(omnirt_backend* backend, int32_t device, omnirt_device_info* info) {
  constexpr const char* kCall = "omnirt_get_device_info";
  OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(info, kCall, "info"));
  OMNIRT_RETURN_IF_ERROR(omnirt::require_device(*backend, device, kCall));
  auto full = sized_struct<omnirt_device_info>();
  full.index = device;
  OMNIRT_RETURN_IF_ERROR(call_slot<&V::get_device_info>(*backend, "get_device_info", device, &full));
  full.struct_size = sizeof full;
  full.name[sizeof full.name - 1] = '\0';
  full.arch[sizeof full.arch - 1] = '\0';
  return write_sized(info, full, kCall, "omnirt_device_info");
}

omnirt_status omnirt_list_op_sets(omnirt_backend* backend, const omnirt_op_set** sets, size_t* count) {
  constexpr const char* kCall = "omnirt_list_op_sets";
  OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(sets, kCall, "sets"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(count, kCall, "count"));
  *sets = nullptr;
  *count = 0;
  OMNIRT_RETURN_IF_ERROR(call_slot<&V::list_op_sets>(*backend, "list_op_sets", sets, count));
  if (*sets == nullptr) *count = 0;
  return OMNIRT_STATUS_OK;
}
