// Python callables as the override tier of wrap_module (omnirt_override_fn).
#ifndef OMNIRT_PYTHON_OVERRIDES_H_
#define OMNIRT_PYTHON_OVERRIDES_H_

#include "state.h"

namespace omnirt_py {

/// The omnirt_override_fn of every Python override (`user_data` is its
/// PyOverride). Takes the GIL, calls the callable with the inputs as tensors
/// of the override's output kind — views of the caller's memory, which keep
/// the caller's inputs alive when the run came from this extension — and
/// takes its results (a tensor, or a tuple/list of them) through __dlpack__
/// without copying. A Python exception becomes the status its type maps to
/// (stashed_override_status()) and the __cause__ of the error the run raises.
extern "C" omnirt_status omnirt_py_call_override(void* user_data, const DLTensor* inputs,
                                                 size_t num_inputs, DLManagedTensor** outputs,
                                                 size_t output_capacity, size_t* num_outputs);

}  // namespace omnirt_py

#endif  // OMNIRT_PYTHON_OVERRIDES_H_
