// Loading a backend's engine (omnirt_backend_vtable::engine_prepare) ahead of
// the first tier that needs it, timed as a stage of its own: loading libtorch
// takes most of a second, which would otherwise be charged to that tier.
#pragma once

#include <string>

#include "module/timeline.h"
#include "omnirt/host.h"

namespace omnirt::wrap {

/// Asks `backend` (which advertises OMNIRT_FEATURE_ENGINE_PREPARE) to load the
/// engine of `format`, and records how that went. Never fails the wrap: a
/// failure is recorded, and the tiers then meet it themselves.
EngineLoad load_engine(omnirt_backend& backend, const std::string& format);

}  // namespace omnirt::wrap
