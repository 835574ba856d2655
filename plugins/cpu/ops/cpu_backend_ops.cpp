// CpuBackend's named-op slots: the reference kernels of ops/, on the caller's
// thread.
#include "cpu_backend.h"
#include "op_registry.h"

namespace omnirt::cpu {

void CpuBackend::list_op_sets(const omnirt_op_set** sets, size_t* count) {
  *sets = ops::op_sets(count);
}

void CpuBackend::list_ops(const omnirt_op_decl** decls, size_t* count) {
  *decls = ops::op_decls(count);
}

void CpuBackend::op_run(const char* name, const DLTensor* inputs, size_t num_inputs,
                        DLTensor* outputs, size_t num_outputs, const omnirt_op_attr* attrs,
                        size_t num_attrs, omnirt_stream* stream) {
  wait_for(stream);
  ops::run_op("cpu", name, inputs, num_inputs, outputs, num_outputs, attrs, num_attrs);
}

}  // namespace omnirt::cpu
