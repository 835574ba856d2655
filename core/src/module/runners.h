// The runners of the compile/eager tiers (a plugin executable) and of an
// embedder override. The named-op runner is in ops/op_runner.h.
#pragma once

#include <memory>
#include <string>

#include "module/overrides.h"
#include "module/runner.h"

namespace omnirt::wrap {

/// Runs (and finally destroys) an executable made by `backend`'s module_load.
/// `names_outputs`: the backend advertises OMNIRT_FEATURE_OUTPUT_NAMES, so
/// output_name asks its slot (never called while the bit is clear).
std::unique_ptr<Runner> make_executable_runner(omnirt_backend& backend,
                                               omnirt_executable* executable, bool names_outputs);

/// Calls an embedder's override kernel for `tag`.
std::unique_ptr<Runner> make_override_runner(omnirt_backend& backend, Override entry,
                                             const std::string& tag);

}  // namespace omnirt::wrap
