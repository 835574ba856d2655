// Element-wise reductions of every omnirt_dtype for gloo, which calls them as
// void(out, a, b, n). Native types use gloo's own (what a gloo user gets);
// f16 and bf16 compute in float and round to nearest even once per step, as
// NCCL does; bool is "or" for sum and max, "and" for prod and min.
#ifndef OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_REDUCTIONS_H_
#define OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_REDUCTIONS_H_

#include <cstddef>
#include <cstdint>

namespace omnirt::cpu::gloo_lib {

using ReduceFunction = void (*)(void* out, const void* a, const void* b, size_t n);

/// The reduction of `op` on `dtype`; avg reduces as sum (then divide_by()).
/// Both are checked by the plugin: every pair here has a function.
ReduceFunction reduce_function(int32_t dtype, int32_t op);

/// data[i] /= divisor for `count` elements (avg's last step): integers
/// truncate toward zero, f16 and bf16 round to nearest even.
void divide_by(void* data, size_t count, int32_t dtype, int32_t divisor);

}  // namespace omnirt::cpu::gloo_lib

#endif  // OMNIRT_PLUGINS_CPU_COLLECTIVES_GLOO_REDUCTIONS_H_
