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
};

}  // namespace omnirt::wrap
