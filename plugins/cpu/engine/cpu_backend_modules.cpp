// CpuBackend's module slots: forwarded to CpuModules on the caller's thread.
#include "cpu_backend.h"

namespace omnirt::cpu {

void CpuBackend::wait_for(omnirt_stream* stream) const {
  const auto target = resolve_stream(stream);
  if (target->capturing()) {
    plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED,
                 "cpu: modules and ops run synchronously and cannot be captured on a stream");
  }
  target->synchronize();
}

omnirt_executable* CpuBackend::module_load(int32_t device, const omnirt_module_source& source,
                                           int32_t tier, const char* /*tag*/) {
  CpuDevice::check_index(device);
  return modules_.load(source, tier);
}

void CpuBackend::executable_run(omnirt_executable* executable, const DLTensor* inputs,
                                size_t num_inputs, omnirt_stream* stream,
                                DLManagedTensor** outputs, size_t output_capacity,
                                size_t* num_outputs) {
  wait_for(stream);
  modules_.run(executable, inputs, num_inputs, outputs, output_capacity, num_outputs);
}

void CpuBackend::executable_destroy(omnirt_executable* executable) { modules_.destroy(executable); }

std::string CpuBackend::engine_prepare(const char* format) { return modules_.prepare(format); }

const char* CpuBackend::output_name(omnirt_executable* executable, const DLManagedTensor* output) {
  return modules_.output_name(executable, output);
}

}  // namespace omnirt::cpu
