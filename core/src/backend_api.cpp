// C entry points that describe a backend: info, capabilities, devices, op sets.
// They work on unavailable backends too, so that omnirt-probe can show them.
#include <string>

#include "backend.h"
#include "error.h"
#include "omnirt/cpp/utf8.hpp"
#include "omnirt/host.h"
#include "plugin_call.h"
#include "plugin_text.h"
#include "sized.h"

using omnirt::call_slot;
using omnirt::null_argument;
using omnirt::require_non_null;
using omnirt::sized_struct;
using omnirt::write_sized;
using V = omnirt_backend_vtable;

namespace {

// Text a plugin wrote into a fixed field of a struct it filled, repaired in place.
template <size_t N>
void repair_in_place(char (&field)[N]) {
  const std::string text = omnirt::read_buffer_text(field, N, N - 1).text;
  omnirt::utf8::copy_text(field, N, text);
}

// The plugin's op sets, copied into host-owned storage with repaired names
// (called under op_sets.lock, once per backend).
omnirt_status read_op_sets(omnirt_backend& backend) {
  const omnirt_op_set* sets = nullptr;
  size_t count = 0;
  OMNIRT_RETURN_IF_ERROR(call_slot<&V::list_op_sets>(backend, "list_op_sets", &sets, &count));
  if (sets == nullptr) count = 0;
  if (count > OMNIRT_MAX_PLUGIN_LIST) {
    return omnirt::fail(OMNIRT_STATUS_INTERNAL, backend.name, "backend '{}' lists {} op sets (more than {})",
                        backend.name, count, OMNIRT_MAX_PLUGIN_LIST);
  }
  auto& known = backend.op_sets;
  for (size_t i = 0; i < count; ++i) {
    known.names.push_back(omnirt::read_plugin_text(sets[i].name, OMNIRT_TEXT_MAX_IDENTIFIER).text);
  }
  for (size_t i = 0; i < count; ++i) known.list.push_back(omnirt_op_set{known.names[i].c_str(), sets[i].version});
  known.known = true;
  return OMNIRT_STATUS_OK;
}

}  // namespace

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
  // The features now, within those whose slots the host kept at load (bits
  // the plugin's ABI minor does not define are not features it has; a lazily
  // loaded SDK may yet clear one), and the host's own copies of the text.
  full.features &= backend->features;
  full.vendor = backend->vendor.c_str();
  full.module_formats = backend->module_format_list.data();
  full.num_module_formats = backend->module_format_list.size();
  full.unavailable_module_formats = backend->unavailable_format_list.data();
  full.num_unavailable_module_formats = backend->unavailable_format_list.size();
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
  repair_in_place(full.name);
  repair_in_place(full.arch);
  return write_sized(info, full, kCall, "omnirt_device_info");
}

omnirt_status omnirt_list_op_sets(omnirt_backend* backend, const omnirt_op_set** sets, size_t* count) {
  constexpr const char* kCall = "omnirt_list_op_sets";
  OMNIRT_RETURN_IF_ERROR(require_non_null(backend, kCall, "backend"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(sets, kCall, "sets"));
  OMNIRT_RETURN_IF_ERROR(require_non_null(count, kCall, "count"));
  *sets = nullptr;
  *count = 0;
  return omnirt::guard_api(kCall, [&]() -> omnirt_status {
    auto& known = backend->op_sets;
    const std::lock_guard<std::mutex> lock(known.lock);
    if (!known.known) OMNIRT_RETURN_IF_ERROR(read_op_sets(*backend));
    *sets = known.list.data();
    *count = known.list.size();
    return OMNIRT_STATUS_OK;
  });
}
