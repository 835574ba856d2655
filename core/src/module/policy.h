// The wrap_module tier order for a tag, and whether compile is switched off.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config.h"

namespace omnirt::wrap {

/// The order of tiers to try for one wrap_module call.
struct TierPlan {
  std::vector<omnirt_tier> order;
  /// Why compile is skipped ("compile disabled by ..."), or "" when it is not.
  std::string compile_disabled_by;
};

/// Plans the tiers for `tag`: its policy, else the "default" policy, else
/// compile -> override -> eager; compile is skipped when the call's
/// OMNIRT_WRAP_* `flags`, OMNIRT_DISABLE_COMPILE or the configuration say so.
TierPlan plan(const WrapModuleConfig& config, const std::string& tag, uint32_t flags);

}  // namespace omnirt::wrap
