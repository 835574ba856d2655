// libtorch helpers shared by the cuda tests and benchmarks that compare with
// PyTorch: whether they can run here, a launch-bound MLP, a module no CUDA
// graph can hold and other modules as TorchScript bytes, and at::Tensor as
// DLTensor.
#ifndef OMNIRT_TESTS_CUDA_TORCH_HELPERS_H_
#define OMNIRT_TESTS_CUDA_TORCH_HELPERS_H_

#include <torch/cuda.h>
#include <torch/script.h>

#include <sstream>
#include <string>

#include "cuda_plugin.h"
#include "omnirt/types.h"

namespace omnirt::cuda_test {

// Why a test against PyTorch on the GPU cannot run here, or "" when it can.
inline std::string gpu_unavailable(const CudaPlugin& plugin) {
  std::string reason;
  if (!plugin.available(&reason) || plugin.device_count() == 0) {
    plugin.available(&reason);  // after the first use: the runtime's own answer
    return "no CUDA device: " + reason;
  }
  return torch::cuda::is_available() ? "" : "libtorch sees no CUDA device";
}

// Four `width`-wide linear layers (x @ w + b) with ReLU between them: at batch 1 its time
// is kernel launches, which is what CUDA graphs remove.
inline std::string mlp_torchscript(int64_t width = 256, int layers = 4) {
  torch::manual_seed(0);
  torch::jit::Module m("mlp");
  std::string body = "def forward(self, x):\n";
  for (int i = 0; i < layers; ++i) {
    const std::string w = "w" + std::to_string(i), b = "b" + std::to_string(i);
    m.register_parameter(w, torch::randn({width, width}) / std::sqrt(double(width)), false);
    m.register_parameter(b, torch::randn({width}) * 0.1, false);
    body += "    x = torch.addmm(self." + b + ", x, self." + w + ")\n";
    if (i + 1 < layers) body += "    x = torch.relu(x)\n";
  }
  body += "    return x\n";
  m.define(body);
  std::ostringstream bytes;
  m.save(bytes);
  return bytes.str();
}

// A module that reads a value back to the host in mid-forward
// (float(x.sum())): it runs, but a CUDA graph cannot capture it.
inline std::string host_sync_torchscript() {
  torch::jit::Module m("sync");
  m.define("def forward(self, x):\n    s = float(x.sum())\n    return x * s\n");
  std::ostringstream bytes;
  m.save(bytes);
  return bytes.str();
}

// A module as torch.jit.script makes one (with `training`), from TorchScript source.
inline std::string torchscript_of(const std::string& source) {
  torch::jit::Module m("model");
  m.register_attribute("training", c10::BoolType::get(), true);
  m.define(source);
  std::ostringstream bytes;
  m.save(bytes);
  return bytes.str();
}

inline DLDataType dl_dtype(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return {kDLFloat, 32, 1};
    case at::kHalf: return {kDLFloat, 16, 1};
    case at::kBFloat16: return {kDLBfloat, 16, 1};
    case at::kLong: return {kDLInt, 64, 1};
    case at::kDouble: return {kDLFloat, 64, 1};
    case at::kBool: return {OMNIRT_DL_BOOL, 8, 1};
    default: throw std::invalid_argument("dtype without a DLPack mapping here");
  }
}

// A borrowed view of `t` (which must outlive it).
inline DLTensor dl_view(const at::Tensor& t) {
  DLTensor d{};
  d.data = t.data_ptr();
  d.device = {t.is_cuda() ? kDLCUDA : kDLCPU, t.is_cuda() ? int32_t(t.get_device()) : 0};
  d.ndim = int32_t(t.dim());
  d.dtype = dl_dtype(t.scalar_type());
  d.shape = const_cast<int64_t*>(t.sizes().data());
  d.strides = const_cast<int64_t*>(t.strides().data());
  return d;
}

// Borrows a DLManagedTensor's memory as an at::Tensor (f32/f16/bf16, bool).
inline at::Tensor as_tensor(const DLManagedTensor* m) {
  const DLTensor& d = m->dl_tensor;
  const at::ScalarType type = d.dtype.code == OMNIRT_DL_BOOL ? at::kBool
                              : d.dtype.code == kDLBfloat    ? at::kBFloat16
                              : d.dtype.bits == 16           ? at::kHalf
                                                             : at::kFloat;
  return torch::from_blob(d.data, at::IntArrayRef(d.shape, size_t(d.ndim)),
                          at::IntArrayRef(d.strides, size_t(d.ndim)),
                          at::TensorOptions().dtype(type).device(at::kCUDA, d.device.device_id));
}

}  // namespace omnirt::cuda_test

#endif  // OMNIRT_TESTS_CUDA_TORCH_HELPERS_H_
