// The services the host lends to plugins (omnirt_host_services), and the
// detail a plugin records with set_error.
#ifndef OMNIRT_CORE_HOST_SERVICES_H_
#define OMNIRT_CORE_HOST_SERVICES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "omnirt/backend.h"

namespace omnirt {

/// The services every plugin gets: one object for the whole process, because
/// a plugin loaded by several hosts is mapped once and keeps the pointer its
/// first entry call received.
const omnirt_host_services* host_services() noexcept;

/// Detail a plugin recorded with set_error on this thread.
struct PluginError {
  omnirt_status status = OMNIRT_STATUS_OK;
  int64_t native_code = 0;
  std::string message;
};

/// Forgets any detail recorded on this thread. Cold paths (loading, reports)
/// call it before calling a plugin, so that what they read afterwards with
/// recorded_plugin_error() belongs to that call.
void clear_plugin_error() noexcept;

/// The detail recorded on this thread since the last clear, or nullptr.
/// Valid until the next call into a plugin on this thread.
const PluginError* recorded_plugin_error() noexcept;

/// For a routed call that just failed with `status`: the detail the plugin
/// recorded with that same status, or nullptr; either way the detail is
/// forgotten. The routed hot path does not clear before each call (a
/// thread-local access there costs more than the whole 5 ns budget allows),
/// so detail left by a slot that called set_error and then returned OK could
/// otherwise be attached to a later failure; requiring the same status keeps
/// such a message from ever describing a different error.
const PluginError* take_plugin_error(omnirt_status status) noexcept;

/// A line a plugin logged at WARN or ERROR.
struct PluginNote {
  std::string backend;
  std::string message;
};

/// While alive, the WARN and ERROR lines plugins log on this thread are kept
/// here for the run report, and go to the host's log at debug level only:
/// omnirt_wrap_module and omnirt_module_run collect what a plugin says of a
/// wrap or run (a CUDA graph it could not capture, libtorch's warnings) for
/// the report, so that a plugin warning on every run fills the report once
/// (it counts repeats), not the embedder's stderr. Nests: the collector alive
/// before is restored after.
class PluginNotes {
 public:
  PluginNotes() noexcept;
  ~PluginNotes();
  PluginNotes(const PluginNotes&) = delete;
  PluginNotes& operator=(const PluginNotes&) = delete;

  const std::vector<PluginNote>& notes() const { return notes_; }
  /// Called by the log service for this thread's collector.
  void add(const char* backend, const char* message);

 private:
  std::vector<PluginNote> notes_;
  PluginNotes* previous_;
};

}  // namespace omnirt

#endif  // OMNIRT_CORE_HOST_SERVICES_H_
