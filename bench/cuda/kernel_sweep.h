// `cuda_kernel_bench --sweep [SUBSTRING]`: for each case of
// tests/cuda/op_cases.h whose line "op dtype shape class" contains
// SUBSTRING (or, where none does and SUBSTRING is "OP DTYPE ROWSxN", for
// that shape), every candidate way to run it — for the row ops (rms_norm,
// layer_norm, softmax) each register configuration that holds the row (the
// plugin's, kernels/row_configs.h, and the sweep's, sweep_configs.h; those
// of groups of lanes in blocks of 64, 128 and 256 threads), for geglu each
// number of pieces a thread loads at once (sweep_configs.h), with cached
// and with streaming access (row_kernels.cuh's Access), on several
// grid sizes, each launched as the plugin launches (programmatic dependent
// launch) —
// next to the plugin's own op_run and ATen, all taking turns in the same
// rounds. Every candidate's result is first checked against ATen's within
// the tests' tolerance (a mismatch is reported and makes the exit status 1;
// it is not timed). Prints a table per case, fastest first, the plugin's
// choice marked, then a summary: per case, ATen, op_run, the plugin's
// choice and the fastest candidate.
#ifndef OMNIRT_BENCH_CUDA_KERNEL_SWEEP_H_
#define OMNIRT_BENCH_CUDA_KERNEL_SWEEP_H_

#include <cuda_runtime_api.h>

#include <string>

#include "cuda_plugin.h"
#include "kernel_timing.h"

namespace omnirt::cuda_test {

/// Runs the sweep on device 0; returns the process exit status.
int run_sweep(CudaPlugin& plugin, const std::string& filter, const Peak& peak,
              const cudaDeviceProp& prop);

}  // namespace omnirt::cuda_test

#endif  // OMNIRT_BENCH_CUDA_KERNEL_SWEEP_H_
