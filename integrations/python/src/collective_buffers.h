// A collective's tensors as the C API takes them (a pointer, an element count,
// an omnirt_dtype), after checking that they can be: on the communicator's
// device, of a dtype collectives take, contiguous. Messages name the call and
// the argument ("all_reduce: recv ...").
#ifndef OMNIRT_PYTHON_COLLECTIVE_BUFFERS_H_
#define OMNIRT_PYTHON_COLLECTIVE_BUFFERS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "omnirt/types.h"

namespace omnirt_py {

/// One argument of one call: "all_gather", "recv".
struct CollectiveArg {
  const char* call;
  const char* name;
};

/// A checked tensor: its first element, element count and omnirt_dtype.
struct CollectiveBuffer {
  void* data = nullptr;
  size_t count = 0;
  int32_t dtype = 0;
  DLDataType dl_dtype{};
};

/// `tensor` as a buffer of a communicator on `device` of a backend whose
/// memory is `device_type` (DLPack). Raises omnirt.InvalidArgument naming
/// `arg` for a tensor on another device, of a dtype with no omnirt_dtype, or
/// not contiguous. Needs the GIL.
CollectiveBuffer collective_buffer(const DLTensor& tensor, int32_t device_type, int32_t device,
                                   CollectiveArg arg);

/// Raises omnirt.InvalidArgument naming `arg` unless `buffer` has the dtype
/// of `like` (named `like_name`) and `count` elements (`why`: "as many as
/// send", "nranks (4) times send's"). Needs the GIL.
void require_shape(const CollectiveBuffer& buffer, CollectiveArg arg, const CollectiveBuffer& like,
                   const char* like_name, size_t count, const std::string& why);

/// OMNIRT_REDUCE_* for "sum", "prod", "min", "max", "avg"; raises
/// omnirt.InvalidArgument naming `call` for anything else. Needs the GIL.
int32_t parse_reduce_op(const std::string& word, const char* call);

}  // namespace omnirt_py

#endif  // OMNIRT_PYTHON_COLLECTIVE_BUFFERS_H_
