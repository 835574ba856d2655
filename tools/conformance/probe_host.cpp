// Probes of the plugin loaded by a host exactly as production loads it, each
// in a fresh process: what loading changes in the process, a double free, a
// second load after an unload.
#include <dlfcn.h>

#include <cstring>
#include <string>

#include <omnirt/host.h>

#include "probe_child.hpp"
#include "process_state.hpp"
#include "resources.hpp"
#include "session.hpp"
#include "text.hpp"

namespace omnirt::conformance {
namespace {

bool has_device(omnirt_backend* b) {
  int32_t count = 0;
  omnirt_backend_info info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  return b != nullptr && omnirt_backend_get_info(b, &info) == OMNIRT_STATUS_OK &&
         info.available && omnirt_get_device_count(b, &count) == OMNIRT_STATUS_OK && count > 0;
}

}  // namespace

// Rules 4 and 11: what loading and using the plugin changes in the process.
int probe_footprint(const std::string& plugin, const std::string& config) {
  { Session warm("", config); }  // the host's own first-use costs are not the plugin's
  const ProcessState before = capture_process_state();
  if (dlopen(plugin.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
    emit("error", dlerror());
    return 0;
  }
  const ProcessState linked = capture_process_state();  // the plugin and what it links
  {
    Session session(plugin, config);
    const ProcessState loaded = capture_process_state();
    emit("libraries_loaded_by_load_slots", join(new_libraries(linked, loaded), "; "));
    emit("threads_started_by_dlopen",
         std::to_string(static_cast<long>(linked.threads) - static_cast<long>(before.threads)));
    emit("threads_started_by_load_slots",
         std::to_string(static_cast<long>(loaded.threads) - static_cast<long>(linked.threads)));
    // First real use loads a lazy vendor runtime: what that changes counts too.
    if (has_device(session.backend())) round_trip_problem(session.backend(), 4096, 1);
    emit("state_changes", join(shared_state_changes(before, capture_process_state()), "; "));
  }
  return 0;
}

// Rule 8: a double free must come back as a status, not a crash.
int probe_double_free(const std::string& plugin, const std::string& config) {
  Session session(plugin, config);
  omnirt_backend* b = session.backend();
  if (!has_device(b)) {
    emit("error", "the backend has no device");
    return 0;
  }
  void* p = nullptr;
  emit("malloc_status", std::to_string(omnirt_malloc(b, 0, 256, &p)));
  emit("first_free_status", std::to_string(omnirt_free(b, 0, p)));
  emit("second_free_status", std::to_string(omnirt_free(b, 0, p)));
  return 0;
}

// Rule 10: the plugin works again after a host unloaded it.
int probe_recreate(const std::string& plugin, const std::string& config) {
  for (const char* round : {"1", "2"}) {
    Session session(plugin, config);
    emit(std::string("round_") + round + "_loaded", session.backend() != nullptr ? "1" : "0");
    emit(std::string("round_") + round + "_round_trip",
         has_device(session.backend()) ? round_trip_problem(session.backend(), 4096, 2)
                                       : "no device");
  }
  return 0;
}

}  // namespace omnirt::conformance
