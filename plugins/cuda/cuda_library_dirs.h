// Where the dynamic loader finds NVIDIA's libraries besides LD_LIBRARY_PATH,
// for the CUDA runtime and NCCL, found without loading anything.
#ifndef OMNIRT_PLUGINS_CUDA_CUDA_LIBRARY_DIRS_H_
#define OMNIRT_PLUGINS_CUDA_CUDA_LIBRARY_DIRS_H_

#include <string>
#include <vector>

namespace omnirt::cuda {

/// ld.so.conf's directories (following its includes), the default library
/// directories, and the folders container runtimes mount drivers in.
std::vector<std::string> loader_library_dirs();

/// Is `soname` mapped into the process already (by libtorch, another plugin)?
bool already_loaded(const char* soname);

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_CUDA_LIBRARY_DIRS_H_
