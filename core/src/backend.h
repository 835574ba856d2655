// The host's side of one loaded backend: what an omnirt_backend* points to.
//
// Host code that calls into a backend (routing, module wrapping, named ops)
// reads `vtable` and `state` and goes through call_slot() in plugin_call.h.
// Add per-backend host state here (e.g. registered overrides) as new members.
#ifndef OMNIRT_CORE_BACKEND_H_
#define OMNIRT_CORE_BACKEND_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "omnirt/backend.h"
#include "module/overrides.h"
#include "omnirt/host.h"
#include "shared_library.h"

struct omnirt_backend {
  omnirt_backend(omnirt::SharedLibrary plugin_library, const omnirt_backend_vtable& plugin_vtable) noexcept
      : vtable(plugin_vtable), library(std::move(plugin_library)) {}
  /// Destroys the plugin's state, then unmaps the plugin.
  ~omnirt_backend();
  omnirt_backend(const omnirt_backend&) = delete;
  omnirt_backend& operator=(const omnirt_backend&) = delete;

  // --- read by every routed call -------------------------------------------

  /// A host-side, full-size copy of the plugin's vtable: slots beyond the
  /// plugin's struct_size (an older minor) are NULL, slots beyond this host's
  /// (a newer minor) were never copied, and so is every optional slot whose
  /// capability bit is clear in `features` (vtable_slots.h). Every other slot
  /// points into the plugin's code. Never changes after load.
  omnirt_backend_vtable vtable;
  /// What the plugin's create() returned; owned, destroyed with the backend.
  omnirt_backend_state* state = nullptr;
  /// is_available() said yes at load. Routed calls refuse unavailable backends.
  bool available = false;
  /// Device count, asked once on the first call that takes a device index
  /// (not at load: counting devices may load the vendor's runtime). -1 until then.
  std::atomic<int32_t> device_count{-1};

  // --- facts --------------------------------------------------------------

  std::string name;
  std::string plugin_version;
  /// The plugin file as records show it (CandidateRecord::path_shown).
  std::string path;
  /// Capabilities asked once at load: the features (only bits both sides
  /// define; later answers may clear bits, never add them), the vendor tag and
  /// module formats (repaired plugin text, owned here so that they outlive
  /// any call).
  uint64_t features = 0;
  std::string vendor;
  std::vector<std::string> module_formats;
  /// Pointers into module_formats, handed out as omnirt_capabilities::module_formats.
  std::vector<const char*> module_format_list;
  /// The formats it cannot load here and why (format, reason), repaired, and
  /// the list handed out as omnirt_capabilities::unavailable_module_formats.
  std::vector<std::pair<std::string, std::string>> unavailable_formats;
  std::vector<omnirt_module_format_unavailable> unavailable_format_list;
  /// Packed ABI version the plugin implements (may be a newer minor than the host's).
  uint32_t abi_version = 0;
  /// The plugin's own vtable struct_size.
  size_t plugin_vtable_size = 0;
  /// From the configuration's `priorities`.
  int32_t priority = 0;
  /// Why is_available() said no ("" when available).
  std::string unavailable_reason;
  /// The host that loaded it, for calls that need host-wide state (configuration).
  omnirt_host* host = nullptr;
  /// Embedder overrides for wrap_module's override tier (omnirt_register_override).
  omnirt::wrap::OverrideTable overrides;
  /// Op sets the plugin declared, repaired and owned here; filled by the
  /// first successful omnirt_list_op_sets (under the lock).
  struct OpSets {
    std::mutex lock;
    bool known = false;
    std::vector<std::string> names;
    std::vector<omnirt_op_set> list;
  } op_sets;

 private:
  omnirt::SharedLibrary library;
};

namespace omnirt {

/// The backend's device count, asked from the plugin once and then cached.
omnirt_status known_device_count(omnirt_backend& backend, int32_t* count) noexcept;

/// The OMNIRT_FEATURE_* bits that both a plugin of packed ABI version
/// `plugin_abi` and this host define.
constexpr uint64_t features_known_to(uint32_t plugin_abi) noexcept {
  return OMNIRT_VERSION_MINOR(plugin_abi) == 0 ? OMNIRT_FEATURES_1_0 : OMNIRT_FEATURES_1_1;
}

/// The omnirt_memory_stats::known bits that both a plugin of packed ABI
/// version `plugin_abi` and this host define.
constexpr uint32_t stats_known_to(uint32_t plugin_abi) noexcept {
  return OMNIRT_VERSION_MINOR(plugin_abi) == 0 ? OMNIRT_STATS_1_0 : OMNIRT_STATS_1_1;
}

}  // namespace omnirt

#endif  // OMNIRT_CORE_BACKEND_H_
