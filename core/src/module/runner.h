// What a wrapped module runs: the tier that wrap_module selected.
#pragma once

#include <cstddef>

#include "omnirt/host.h"

namespace omnirt::wrap {

/// One selected tier, ready to run. Implementations are immutable after
/// construction, so run() may be called from many threads at once. On
/// failure run() has recorded the detail for omnirt_last_error().
class Runner {
 public:
  virtual ~Runner() = default;
  virtual omnirt_status run(const DLTensor* inputs, size_t num_inputs, omnirt_stream* stream,
                            DLManagedTensor** outputs, size_t output_capacity,
                            size_t* num_outputs) = 0;
  /// The name of `output`, one of run()'s outputs ("" when it has none).
  /// Only an executable of a backend with OMNIRT_FEATURE_OUTPUT_NAMES names them.
  virtual omnirt_status output_name(const DLManagedTensor* /*output*/, const char** name) {
    *name = "";
    return OMNIRT_STATUS_OK;
  }
};

}  // namespace omnirt::wrap
