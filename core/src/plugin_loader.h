// Loading one plugin file into a backend: dlopen, entry symbol, version
// negotiation, vtable validation, create, capabilities, is_available. The
// host runs it in-process; the vetting helper (tools/vet) runs the very same
// steps in a child process first.
#ifndef OMNIRT_CORE_PLUGIN_LOADER_H_
#define OMNIRT_CORE_PLUGIN_LOADER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "candidate.h"

namespace omnirt {

/// Told when each load stage starts, before any of the plugin's code for it
/// runs, so that a vetting child can report where it was if that code ends
/// the process.
class LoadObserver {
 public:
  virtual ~LoadObserver() = default;
  virtual void starting(omnirt_load_stage stage) noexcept = 0;
};

/// Loads the plugin of `candidate`, which passed the path checks. Fills in its
/// stage, status, reason, versions and timings. Returns the backend whenever
/// the plugin's create() succeeded (available or not), else nullptr; a plugin
/// never makes this fail other than by its record. `options` go to create().
/// `observer` may be nullptr. Loads and unloads are serialized process-wide:
/// entry points and dlopen/dlclose of one plugin by several hosts must not
/// interleave.
std::unique_ptr<omnirt_backend> load_plugin(CandidateRecord* candidate,
                                            const std::map<std::string, std::string>& options,
                                            LoadObserver* observer = nullptr);

/// Destroys `backends` and unloads their plugins, serialized with loading.
void unload_plugins(std::vector<std::unique_ptr<omnirt_backend>>* backends) noexcept;

}  // namespace omnirt

#endif  // OMNIRT_CORE_PLUGIN_LOADER_H_
