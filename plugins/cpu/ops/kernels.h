// The reference kernels of op set omnirt.nn v1 on f32 host tensors, contiguous
// or strided. Each validates its call (OpCall) and throws INVALID_ARGUMENT.
// Outputs may be the inputs themselves (in place), but must not partly overlap
// them.
#ifndef OMNIRT_CPU_OPS_KERNELS_H_
#define OMNIRT_CPU_OPS_KERNELS_H_

#include "op_call.h"

namespace omnirt::cpu::ops {

// y = x / sqrt(mean(x^2 over the last dim) + eps) * weight; attr eps = 1e-6.
void rms_norm(const OpCall& call);
// y = (x - mean) / sqrt(var + eps) * weight + bias over the last dim, biased
// variance (as torch.nn.functional.layer_norm); attr eps = 1e-5.
void layer_norm(const OpCall& call);
// y = exp(x - max) / sum(exp(x - max)) along attr dim (default -1).
void softmax(const OpCall& call);
// y = gelu(a) * b elementwise, a and b of one shape; exact erf GELU, as
// torch.nn.functional.gelu's default (approximate='none').
void geglu(const OpCall& call);

}  // namespace omnirt::cpu::ops

#endif  // OMNIRT_CPU_OPS_KERNELS_H_
