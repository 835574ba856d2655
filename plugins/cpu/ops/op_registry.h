// The named ops the cpu backend implements (op set omnirt.nn v1): what
// list_op_sets/list_ops return and what op_run dispatches to.
#ifndef OMNIRT_CPU_OPS_OP_REGISTRY_H_
#define OMNIRT_CPU_OPS_OP_REGISTRY_H_

#include "omnirt/types.h"

namespace omnirt::cpu::ops {

// Static arrays: valid for the life of the plugin.
const omnirt_op_set* op_sets(size_t* count);
const omnirt_op_decl* op_decls(size_t* count);

// Runs op `name`. Throws omnirt::plugin::Error: NOT_FOUND naming `backend`
// and the op when it is unknown, INVALID_ARGUMENT for a bad call.
void run_op(const char* backend, const char* name, const DLTensor* inputs, size_t num_inputs,
            DLTensor* outputs, size_t num_outputs, const omnirt_op_attr* attrs, size_t num_attrs);

}  // namespace omnirt::cpu::ops

#endif  // OMNIRT_CPU_OPS_OP_REGISTRY_H_
