// The nvcc-built fatbin of kernels/ops.cu, embedded in the plugin.
#ifndef OMNIRT_PLUGINS_CUDA_KERNELS_FATBIN_H_
#define OMNIRT_PLUGINS_CUDA_KERNELS_FATBIN_H_

extern "C" __attribute__((visibility("hidden"))) const unsigned char omnirt_cuda_fatbin[];
extern "C" __attribute__((visibility("hidden"))) const unsigned char omnirt_cuda_fatbin_end[];

#endif  // OMNIRT_PLUGINS_CUDA_KERNELS_FATBIN_H_
