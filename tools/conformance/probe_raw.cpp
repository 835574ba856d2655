// Probes of the plugin without a host: its entry called with chosen ABI
// ranges, and its slots called directly, so that nothing the host does
// (copying structs, catching exceptions) hides what the plugin does.
#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <omnirt/backend.h>

#include "backend_options.hpp"
#include "probe_child.hpp"
#include "short_struct.hpp"
#include "text.hpp"

namespace omnirt::conformance {
namespace {

struct RecordedError {
  omnirt_status status = OMNIRT_STATUS_OK;
  std::string message;
};
RecordedError g_error;
std::vector<std::string> g_threw;  // slots that let an exception out (rule 8)

omnirt_status record_error(omnirt_status status, int64_t, const char* message) {
  g_error = {status, message != nullptr ? message : ""};
  return status;
}
void ignore_log(int32_t, const char*, const char*) {}
const omnirt_host_services kServices = {sizeof(omnirt_host_services), OMNIRT_ABI_VERSION,
                                        record_error, ignore_log};

template <class F>
omnirt_status guarded(const char* slot, F&& call) {
  try {
    return call();
  } catch (...) {
    g_threw.push_back(slot);
    return OMNIRT_STATUS_INTERNAL;
  }
}

// is_available twice with a roomy reason buffer, then once with 8 bytes and
// canaries behind them.
void probe_availability(const omnirt_backend_vtable& v, omnirt_backend_state* state) {
  for (const char* round : {"1", "2"}) {
    char reason[256];
    std::memset(reason, 'x', sizeof reason);
    int32_t available = -1;
    const omnirt_status st = guarded("is_available", [&] {
      return v.is_available(state, &available, reason, sizeof reason);
    });
    emit(std::string("is_available_status_") + round, std::to_string(st));
    emit(std::string("available_") + round, std::to_string(available));
    const bool terminated = std::memchr(reason, '\0', sizeof reason) != nullptr;
    emit(std::string("reason_") + round, terminated ? reason : "<not NUL-terminated>");
  }
  char small[8 + 32];
  std::memset(small, 'x', sizeof small);
  int32_t available = -1;
  guarded("is_available", [&] { return v.is_available(state, &available, small, 8); });
  const bool overrun = !std::all_of(small + 8, small + sizeof small, [](char c) { return c == 'x'; });
  emit("reason_overrun", overrun ? "1" : "0");
  emit("small_reason_terminated",
       available != 0 || std::memchr(small, '\0', 8) != nullptr ? "1" : "0");
}

// Each struct the plugin fills, with a short struct_size: "<name>_problem"
// says what went wrong ("" for nothing), "<name>_status" what the slot returned.
template <class T, class Fill>
void probe_struct(const char* name, size_t short_size, Fill&& fill) {
  omnirt_status status = OMNIRT_STATUS_OK;
  emit(std::string(name) + "_problem", check_short_struct<T>(short_size, &status, [&](T* out) {
         return guarded(name, [&] { return fill(out); });
       }));
  emit(std::string(name) + "_status", std::to_string(status));
}

void probe_structs(const omnirt_backend_vtable& v, omnirt_backend_state* state) {
  probe_struct<omnirt_capabilities>("get_capabilities", offsetof(omnirt_capabilities, features),
                                    [&](omnirt_capabilities* c) { return v.get_capabilities(state, c); });
  // Like the host, never call an optional slot whose feature bit is clear:
  // what the plugin left there need not be code.
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  const bool has_stats =
      guarded("get_capabilities", [&] { return v.get_capabilities(state, &caps); }) == OMNIRT_STATUS_OK &&
      (caps.features & OMNIRT_FEATURE_MEMORY_STATS) != 0;
  int32_t devices = 0;
  guarded("get_device_count", [&] { return v.get_device_count(state, &devices); });
  if (devices < 1) return;
  probe_struct<omnirt_device_info>("get_device_info", offsetof(omnirt_device_info, name),
                                   [&](omnirt_device_info* i) { return v.get_device_info(state, 0, i); });
  if (has_stats && v.memory_stats != nullptr) {
    probe_struct<omnirt_memory_stats>(
        "memory_stats", offsetof(omnirt_memory_stats, peak_bytes),
        [&](omnirt_memory_stats* m) { return v.memory_stats(state, 0, m); });
  }
}

// dlopens the plugin and calls its entry once, offering [min, max].
const omnirt_backend_vtable* open_raw(const std::string& path, uint32_t min, uint32_t max) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    emit("error", dlerror());
    return nullptr;
  }
  auto entry = reinterpret_cast<omnirt_backend_entry_fn>(
      dlsym(handle, OMNIRT_BACKEND_ENTRY_SYMBOL));
  if (entry == nullptr) {
    emit("error", std::string("no symbol ") + OMNIRT_BACKEND_ENTRY_SYMBOL);
    return nullptr;
  }
  static omnirt_backend_entry_args args;
  args = {sizeof args, min, max, &kServices};
  const omnirt_backend_vtable* vtable = nullptr;
  guarded("entry", [&] {
    vtable = entry(&args);
    return OMNIRT_STATUS_OK;
  });
  return vtable;
}

}  // namespace

// Rule 3: the entry's answer to one offered range.
int probe_negotiate(const std::string& plugin, uint32_t min, uint32_t max) {
  const omnirt_backend_vtable* v = open_raw(plugin, min, max);
  emit("vtable", v != nullptr ? "1" : "0");
  if (v != nullptr) emit("abi_version", std::to_string(v->abi_version));
  emit("error_status", std::to_string(g_error.status));
  emit("error_message", g_error.message);
  emit("threw", join(g_threw, ", "));
  return 0;
}

// Rules 5, 6 and 8 called directly, with the options the host would pass, so
// that nothing the host does (copying structs, catching exceptions) hides
// what the plugin does.
int probe_raw(const std::string& plugin, const std::string& config) {
  const omnirt_backend_vtable* v = open_raw(plugin, OMNIRT_ABI_VERSION, OMNIRT_ABI_VERSION);
  emit("vtable", v != nullptr ? "1" : "0");
  if (v == nullptr) return 0;
  // The name is read no further than a valid one can be (backend.h, "Text").
  const std::map<std::string, std::string> options = backend_options(
      config, v->name != nullptr ? std::string(v->name, strnlen(v->name, OMNIRT_TEXT_MAX_NAME + 1)) : "");
  std::vector<const char*> keys, values;
  for (const auto& [key, value] : options) {
    keys.push_back(key.c_str());
    values.push_back(value.c_str());
  }
  omnirt_backend_create_args args = {sizeof args, keys.data(), values.data(), keys.size()};
  omnirt_backend_state* state = nullptr;
  const omnirt_status created = guarded("create", [&] { return v->create(&args, &state); });
  emit("create_status", std::to_string(created));
  // ABI 1.1 slots whose feature the kit can check only by their presence.
  const bool has_1_1 = OMNIRT_VERSION_MINOR(v->abi_version) >= 1 &&
                       v->struct_size >= offsetof(omnirt_backend_vtable, output_name) + sizeof(void*);
  emit("output_name_slot", has_1_1 && v->output_name != nullptr ? "1" : "0");
  const bool has_prepare = has_1_1 && v->struct_size >= offsetof(omnirt_backend_vtable, engine_prepare) +
                                                            sizeof(void*) &&
                           v->engine_prepare != nullptr;
  emit("engine_prepare_slot", has_prepare ? "1" : "0");
  if (created == OMNIRT_STATUS_OK && has_prepare) {
    // A format no engine loads must be refused without loading anything.
    char description[64] = "";
    emit("engine_prepare_unknown_format", std::to_string(guarded("engine_prepare", [&] {
           return v->engine_prepare(state, "omnirt-conformance-no-such-format", description,
                                    sizeof description);
         })));
  }
  if (created == OMNIRT_STATUS_OK) {
    probe_availability(*v, state);
    probe_structs(*v, state);
    guarded("destroy", [&] {
      v->destroy(state);
      return OMNIRT_STATUS_OK;
    });
  }
  emit("error_message", g_error.message);
  emit("threw", join(g_threw, ", "));
  return 0;
}

}  // namespace omnirt::conformance
