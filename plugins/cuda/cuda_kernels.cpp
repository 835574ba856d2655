#include "cuda_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "cpu/engine/dlpack_text.h"  // dtype/device text shared with the cpu plugin
#include "cuda_backend.h"
#include "cuda_device.h"
#include "cuda_status.h"
#include "cuda_stream.h"
#include "kernels/fatbin.h"
#include "launch_plan.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cuda {
namespace {

using plugin::fail;

constexpr char kOpSet[] = "omnirt.nn";
constexpr int32_t kOpSetVersion = 1;
const omnirt_op_set kSets[] = {{kOpSet, kOpSetVersion}};
enum Op { kRmsNorm, kLayerNorm, kSoftmax, kGeglu };
const omnirt_op_decl kDecls[] = {
    {"rms_norm", kOpSet, 2, 1},
    {"layer_norm", kOpSet, 3, 1},
    {"softmax", kOpSet, 1, 1},
    {"geglu", kOpSet, 2, 1},
};
static_assert(std::size(kDecls) == Kernels::kOps);
const char* const kDtypeSuffix[Kernels::kDtypes] = {"f32", "f16", "bf16"};

// A checked, contiguous tensor as the kernels take it.
struct Tensor {
  void* data;
  int dtype;  // index into kDtypeSuffix
  int device;
  std::vector<int64_t> shape;
  int64_t numel;
};

// One op call: its tensors and attributes checked, messages naming the op.
class Call {
 public:
  Call(const omnirt_op_decl& decl, const omnirt_op_attr* attrs, size_t num_attrs)
      : op_(decl.name), attrs_(attrs), num_attrs_(num_attrs) {}

  Tensor tensor(const DLTensor& t, const std::string& who) const {
    if (t.device.device_type != kDLCUDA) {
      failure(who + ": device must be cuda, got " + cpu::device_text(t.device));
    }
    int dtype = -1;
    if (t.dtype.lanes == 1 && t.dtype.code == kDLFloat && t.dtype.bits == 32) dtype = 0;
    if (t.dtype.lanes == 1 && t.dtype.code == kDLFloat && t.dtype.bits == 16) dtype = 1;
    if (t.dtype.lanes == 1 && t.dtype.code == kDLBfloat && t.dtype.bits == 16) dtype = 2;
    if (dtype < 0)
      failure(who + ": dtype must be float32, float16 or bfloat16, got " +
              cpu::dtype_text(t.dtype));
    if (t.ndim < 1 || t.shape == nullptr) failure(who + ": needs at least one dimension");
    Tensor out{static_cast<char*>(t.data) + t.byte_offset, dtype, t.device.device_id,
               std::vector<int64_t>(t.shape, t.shape + t.ndim), 1};
    int64_t expected_stride = 1;
    for (int d = t.ndim - 1; d >= 0; --d) {
      if (t.shape[d] < 0) failure(who + ": negative shape");
      if (t.strides != nullptr && t.shape[d] > 1 && t.strides[d] != expected_stride) {
        failure(who + ": must be contiguous (row-major); dimension " + std::to_string(d) +
                " has stride " + std::to_string(t.strides[d]) + ", expected " +
                std::to_string(expected_stride));
      }
      expected_stride *= t.shape[d];
    }
    out.numel = expected_stride;
    if (out.numel > 0 && t.data == nullptr) failure(who + ": data is NULL");
    return out;
  }

  void same(const Tensor& t, const Tensor& like, const std::string& who) const {
    if (t.shape != like.shape)
      failure(who + ": shape " + text(t.shape) + " must be " + text(like.shape));
    if (t.dtype != like.dtype) failure(who + ": dtype must match the first input's");
    if (t.device != like.device) failure(who + ": must be on the first input's device");
  }

  // `t` must be the 1-D [n] vector of `x`'s last dimension.
  void last_dim_vector(const Tensor& t, const Tensor& x, const std::string& who) const {
    if (t.shape.size() != 1 || t.shape[0] != x.shape.back()) {
      failure(who + ": shape " + text(t.shape) + " must be [" + std::to_string(x.shape.back()) +
              "]");
    }
    if (t.dtype != x.dtype) failure(who + ": dtype must match the first input's");
    if (t.device != x.device) failure(who + ": must be on the first input's device");
  }

  // Unknown attributes are rejected: a typo must not silently become the default.
  // `known` is the one attribute the op takes, or nullptr for none.
  void known_attrs(const char* known) const {
    for (size_t i = 0; i < num_attrs_; ++i) {
      const char* name = attrs_[i].name;
      if (name == nullptr || known == nullptr || std::strcmp(name, known) != 0) {
        failure(std::string("unknown attribute '") + (name ? name : "(null)") + "'; it takes " +
                (known ? known : "none"));
      }
    }
  }

  double attr(const char* name, double fallback) const {
    for (size_t i = 0; i < num_attrs_; ++i) {
      if (std::strcmp(attrs_[i].name, name) == 0) return attrs_[i].value;
    }
    return fallback;
  }

  [[noreturn]] void failure(const std::string& what) const {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string("cuda op '") + op_ + "': " + what);
  }

 private:
  static std::string text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
  }

  const char* op_;
  const omnirt_op_attr* attrs_;
  size_t num_attrs_;
};

// Does every tensor of a call start 16-byte aligned (16-byte accesses)?
bool aligned(std::initializer_list<const void*> pointers) {
  for (const void* p : pointers) {
    if (reinterpret_cast<uintptr_t>(p) % kernels::kPackBytes != 0) return false;
  }
  return true;
}

// The kernel variants each op has for each dtype (launch_plan.h).
bool has_variant(int op, int dtype, int variant) {
  if (!variant_has_dtype(variant, dtype == 0 ? 4 : 2)) return false;
  switch (op) {
    case kGeglu: return variant == kElementwisePacks || variant == kElementwiseElements;
    case kSoftmax: return variant < kRowVariants || variant == kColumns || variant == kSharedRow;
    case kLayerNorm: return variant < kRowVariants || variant == kSharedRow;
    default: return variant < kRowVariants;
  }
}

}  // namespace

const omnirt_op_set* Kernels::op_sets(size_t* count) {
  *count = std::size(kSets);
  return kSets;
}

const omnirt_op_decl* Kernels::op_decls(size_t* count) {
  *count = std::size(kDecls);
  return kDecls;
}

Kernels::~Kernels() {
  if (library_ != nullptr) cuda_->cudaLibraryUnload(library_);
}

cudaKernel_t Kernels::kernel(const Symbols& cuda, int op, int dtype, int variant) {
  once_([&] {
    OMNIRT_CUDA_CALL(cuda, cudaLibraryLoadData, &library_, omnirt_cuda_fatbin, nullptr, nullptr, 0u,
                     nullptr, nullptr, 0u);
    cuda_ = &cuda;
    for (int o = 0; o < kOps; ++o) {
      for (int t = 0; t < kDtypes; ++t) {
        for (int v = 0; v < kVariants; ++v) {
          if (!has_variant(o, t, v)) continue;
          const std::string name = std::string("omnirt_") + kDecls[o].name + "_" + kDtypeSuffix[t] +
                                   "_" + variant_suffix(v);
          OMNIRT_CUDA_CALL(cuda, cudaLibraryGetKernel, &kernels_[o][t][v], library_, name.c_str());
        }
      }
    }
  });
  return kernels_[op][dtype][variant];
}

Kernels::DeviceTraits Kernels::device_traits(const Symbols& cuda, int device) {
  const bool cached = device < kCachedDevices;
  if (cached) {
    if (const int known = device_traits_[device].load(std::memory_order_relaxed)) {
      return {known / 2, known % 2 == 1};
    }
  }
  DeviceTraits traits;
  int major = 0;
  OMNIRT_CUDA_CALL(cuda, cudaDeviceGetAttribute, &traits.sm_count, cudaDevAttrMultiProcessorCount, device);
  OMNIRT_CUDA_CALL(cuda, cudaDeviceGetAttribute, &major, cudaDevAttrComputeCapabilityMajor, device);
  traits.overlap = major >= 9;
  // Above the default 48 KiB a kernel must ask for its dynamic shared memory.
  for (int dtype = 0; dtype < kDtypes; ++dtype) {
    OMNIRT_CUDA_CALL(cuda, cudaFuncSetAttribute,
                     reinterpret_cast<const void*>(kernel(cuda, kSoftmax, dtype, kSharedRow)),
                     cudaFuncAttributeMaxDynamicSharedMemorySize, int(kernels::kSharedRowBytes));
  }
  if (cached) {
    device_traits_[device].store(traits.sm_count * 2 + (traits.overlap ? 1 : 0), std::memory_order_relaxed);
  }
  return traits;
}

void Kernels::launch(const Symbols& cuda, cudaKernel_t function, const LaunchPlan& plan,
                     const DeviceTraits& traits, void** args, cudaStream_t stream) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(plan.grid);
  config.blockDim = dim3(plan.block);
  config.dynamicSmemBytes = plan.shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute overlap{};
  overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  if (traits.overlap) {
    config.attrs = &overlap;
    config.numAttrs = 1;
  }
  OMNIRT_CUDA_CALL(cuda, cudaLaunchKernelExC, &config, reinterpret_cast<const void*>(function), args);
}

void Kernels::run(const Symbols& cuda, const char* name, const DLTensor* inputs, size_t num_inputs,
                  DLTensor* outputs, size_t num_outputs, const omnirt_op_attr* attrs,
                  size_t num_attrs, cudaStream_t stream) {
  if (name == nullptr) fail(OMNIRT_STATUS_INVALID_ARGUMENT, "name: NULL");
  int op = 0;
  while (op < kOps && std::strcmp(kDecls[op].name, name) != 0) ++op;
  if (op == kOps) {
    fail(OMNIRT_STATUS_NOT_FOUND, std::string("backend 'cuda' has no op '") + name +
                                      "' (omnirt.nn v1: rms_norm, layer_norm, softmax, geglu)");
  }
  const omnirt_op_decl& decl = kDecls[op];
  Call call(decl, attrs, num_attrs);
  if (num_inputs != size_t(decl.num_inputs) || num_outputs != size_t(decl.num_outputs)) {
    call.failure("takes " + std::to_string(decl.num_inputs) + " inputs and " +
                 std::to_string(decl.num_outputs) + " output, got " + std::to_string(num_inputs) +
                 " and " + std::to_string(num_outputs));
  }
  const Tensor x = call.tensor(inputs[0], "input 0");
  const Tensor y = call.tensor(outputs[0], "output 0");
  call.same(y, x, "output 0");
  // Kernel arguments: the launch copies them from these locals.
  void* x_data = x.data;
  void* y_data = y.data;
  void* w_data = nullptr;
  void* b_data = nullptr;
  long long rows = 0, n = x.shape.back(), inner = 1, count = x.numel;
  float eps = 0;
  std::vector<void*> args;
  const int element_bytes = x.dtype == 0 ? 4 : 2;
  const DeviceTraits traits = device_traits(cuda, x.device);
  const int sms = traits.sm_count;
  LaunchPlan plan;
  switch (op) {
    case kRmsNorm:
    case kLayerNorm: {
      call.known_attrs("eps");
      eps = float(call.attr("eps", op == kRmsNorm ? 1e-6 : 1e-5));
      if (!std::isfinite(eps) || eps < 0) call.failure("eps must be finite and >= 0");
      const Tensor weight = call.tensor(inputs[1], "input 1 (weight)");
      call.last_dim_vector(weight, x, "input 1 (weight)");
      w_data = weight.data;
      args = {&x_data, &w_data};
      if (op == kLayerNorm) {
        const Tensor bias = call.tensor(inputs[2], "input 2 (bias)");
        call.last_dim_vector(bias, x, "input 2 (bias)");
        b_data = bias.data;
        args.push_back(&b_data);
      }
      rows = n == 0 ? 0 : x.numel / n;
      args.insert(args.end(), {&y_data, &rows, &n, &eps});
      plan = plan_rows(op == kRmsNorm ? RowOp::kRmsNorm : RowOp::kLayerNorm, rows, n, element_bytes,
                       aligned({x_data, y_data, w_data, b_data}), sms);
      break;
    }
    case kSoftmax: {
      call.known_attrs("dim");
      const double dim_attr = call.attr("dim", -1);
      const int64_t ndim = int64_t(x.shape.size());
      if (dim_attr != std::floor(dim_attr) || dim_attr < double(-ndim) ||
          dim_attr >= double(ndim)) {
        call.failure("dim must be an integer in [" + std::to_string(-ndim) + ", " +
                     std::to_string(ndim) + ")");
      }
      const int64_t dim = dim_attr < 0 ? int64_t(dim_attr) + ndim : int64_t(dim_attr);
      n = x.shape[size_t(dim)];
      for (int64_t d = dim + 1; d < ndim; ++d) inner *= x.shape[size_t(d)];
      rows = n == 0 ? 0 : x.numel / n;
      args = {&x_data, &y_data, &rows, &n, &inner};
      plan = inner == 1 ? plan_rows(RowOp::kSoftmax, rows, n, element_bytes, aligned({x_data, y_data}), sms)
                        : plan_columns(rows, sms);
      break;
    }
    case kGeglu: {
      call.known_attrs(nullptr);
      const Tensor b = call.tensor(inputs[1], "input 1 (b)");
      call.same(b, x, "input 1 (b)");
      w_data = b.data;
      args = {&x_data, &w_data, &y_data, &count};
      plan = plan_elementwise(count, element_bytes, aligned({x_data, w_data, y_data}));
      break;
    }
  }
  if (x.numel == 0 || plan.grid == 0) return;
  launch(cuda, kernel(cuda, op, x.dtype, plan.variant), plan, traits, args.data(), stream);
}

void CudaBackend::list_op_sets(const omnirt_op_set** sets, size_t* count) {
  *sets = Kernels::op_sets(count);
}

void CudaBackend::list_ops(const omnirt_op_decl** ops, size_t* count) {
  *ops = Kernels::op_decls(count);
}

void CudaBackend::op_run(const char* name, const DLTensor* inputs, size_t num_inputs,
                         DLTensor* outputs, size_t num_outputs, const omnirt_op_attr* attrs,
                         size_t num_attrs, omnirt_stream* stream) {
  if ((num_inputs > 0 && inputs == nullptr) || num_outputs == 0 || outputs == nullptr) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, "op_run: inputs and outputs are required");
  }
  const int device = num_inputs > 0 ? inputs[0].device.device_id : outputs[0].device.device_id;
  if (stream != nullptr && stream_of(stream)->device != device) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, "stream: on device " +
                                             std::to_string(stream_of(stream)->device) +
                                             ", the tensors on device " + std::to_string(device));
  }
  DeviceGuard guard(cuda(), checked_device(device));
  kernels_.run(cuda(), name, inputs, num_inputs, outputs, num_outputs, attrs, num_attrs,
               cuda_stream(stream));
}

}  // namespace omnirt::cuda
