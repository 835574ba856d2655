// A named op serving as a module's override tier.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "module/runner.h"
#include "ops/ops.h"

namespace omnirt::ops {

/// Runs op `lookup` for modules wrapped on `owner`. Each run allocates the
/// op's outputs on `owner` (device `device`), shaped and typed like input 0;
/// their deleters free that memory through `owner`. `attrs` are copied.
std::unique_ptr<wrap::Runner> make_op_runner(omnirt_backend& owner, int32_t device,
                                             const Lookup& lookup, const std::string& name,
                                             const omnirt_op_attr* attrs, size_t num_attrs);

}  // namespace omnirt::ops
