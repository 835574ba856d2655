// A host over the cuda plugin of this build alone (OMNIRT_CUDA_PLUGIN_PATH
// from CMake; the environment and the installed plugin directory ignored),
// for the cuda tests and benchmarks that go through the host API.
#ifndef OMNIRT_TESTS_CUDA_CUDA_HOST_H_
#define OMNIRT_TESTS_CUDA_CUDA_HOST_H_

#include "omnirt/host.h"

namespace omnirt::cuda_test {

inline omnirt_status create_cuda_host(omnirt_host** host) {
  const char* paths[] = {OMNIRT_CUDA_PLUGIN_PATH};
  omnirt_host_options options{};
  options.struct_size = sizeof options;
  options.plugin_paths = paths;
  options.num_plugin_paths = 1;
  options.flags = OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR;
  return omnirt_host_create(&options, host);
}

}  // namespace omnirt::cuda_test

#endif  // OMNIRT_TESTS_CUDA_CUDA_HOST_H_
