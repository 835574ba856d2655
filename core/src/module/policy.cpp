#include "module/policy.h"

#include "omnirt/host.h"

namespace omnirt::wrap {

TierPlan plan(const WrapModuleConfig& config, const std::string& tag, uint32_t flags) {
  TierPlan result;
  auto policy = config.policies.find(tag);
  if (policy == config.policies.end()) policy = config.policies.find("default");
  if (policy != config.policies.end()) {
    result.order = policy->second;
  } else {
    result.order = {OMNIRT_TIER_COMPILE, OMNIRT_TIER_OVERRIDE, OMNIRT_TIER_EAGER};
  }
  // The most specific switch is named.
  if ((flags & OMNIRT_WRAP_DISABLE_COMPILE) != 0) {
    result.compile_disabled_by = "compile disabled by OMNIRT_WRAP_DISABLE_COMPILE";
  } else if (config.compile_disabled_by_environment) {
    result.compile_disabled_by = "compile disabled by OMNIRT_DISABLE_COMPILE";
  } else if (!config.compile) {
    result.compile_disabled_by = "compile disabled by configuration (wrap_module.compile: false)";
  }
  return result;
}

}  // namespace omnirt::wrap
