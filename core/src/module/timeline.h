// The record of one wrap_module call: every tier attempted, in order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "omnirt/status.h"

namespace omnirt::wrap {

struct Attempt {
  int32_t tier = 0;
  bool ok = false;
  bool selected = false;
  omnirt_status status = 0;
  /// Why it failed or was skipped; "" when ok.
  std::string reason;
  /// What served the tier ("embedder override", "op 'rms_norm' of backend 'cpu'"); may be "".
  std::string detail;
  uint64_t elapsed_ns = 0;
};

/// The backend's engine loaded before the first tier that needed it.
struct EngineLoad {
  omnirt_status status = 0;
  /// What the backend says it loaded ("libtorch 1.13.0"); may be "".
  std::string engine;
  /// Why it failed; "" when OK.
  std::string reason;
  uint64_t elapsed_ns = 0;
};

struct TimelineEntry {
  std::string backend;
  std::string tag;
  int32_t device = 0;
  /// Set when a tier needed the engine and the backend can load it ahead
  /// (OMNIRT_FEATURE_ENGINE_PREPARE); its time is no tier's.
  std::optional<EngineLoad> engine_load;
  std::vector<Attempt> attempts;
  /// Wall time of the whole wrap_module call, engine load included.
  uint64_t elapsed_ns = 0;

  /// The selected attempt, or nullptr when every tier failed.
  const Attempt* selected() const {
    for (const Attempt& a : attempts) {
      if (a.selected) return &a;
    }
    return nullptr;
  }
};

}  // namespace omnirt::wrap
