// The omnirt.nn ops as CUDA kernels, compiled by nvcc into a fatbin that the
// plugin embeds and loads with cudaLibraryLoadData (cuda_kernels.cpp). Same
// semantics as the cpu reference kernels (plugins/cpu/ops/kernels.h); f16 and
// bf16 are read and written in their type and accumulated in f32.
//
// Row ops run one block per row (grid-stride over rows); blockDim.x is a
// multiple of 32, at most 1024. A row of a softmax over a dimension that is
// not the last is strided: element k of row r sits at
// (r / inner) * n * inner + r % inner + k * inner.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace {

__device__ __forceinline__ float load(const float* p) { return *p; }
__device__ __forceinline__ float load(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float load(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__half* p, float v) { *p = __float2half(v); }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

struct Sum {
  __device__ float operator()(float a, float b) const { return a + b; }
  __device__ static float identity() { return 0.f; }
};
struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
  __device__ static float identity() { return -INFINITY; }
};

// Every thread of the block gets the reduction of all threads' `value`.
template <class Op>
__device__ float block_reduce(float value, Op op) {
  __shared__ float partial[32];
  for (int offset = 16; offset > 0; offset >>= 1) {
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // `partial` may still be read by a previous reduction
  if (lane == 0) partial[warp] = value;
  __syncthreads();
  value = lane < int(blockDim.x >> 5) ? partial[lane] : Op::identity();
  for (int offset = 16; offset > 0; offset >>= 1) {
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  }
  return value;
}

template <class T>
__device__ void rms_norm(const T* x, const T* weight, T* y, long long rows, long long n,
                         float eps) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* in = x + row * n;
    T* out = y + row * n;
    float squares = 0.f;
    for (long long i = threadIdx.x; i < n; i += blockDim.x) {
      const float v = load(in + i);
      squares += v * v;
    }
    const float scale = rsqrtf(block_reduce(squares, Sum{}) / float(n) + eps);
    for (long long i = threadIdx.x; i < n; i += blockDim.x) {
      store(out + i, load(in + i) * scale * load(weight + i));
    }
  }
}

template <class T>
__device__ void layer_norm(const T* x, const T* weight, const T* bias, T* y, long long rows,
                           long long n, float eps) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* in = x + row * n;
    T* out = y + row * n;
    float sum = 0.f;
    for (long long i = threadIdx.x; i < n; i += blockDim.x) sum += load(in + i);
    const float mean = block_reduce(sum, Sum{}) / float(n);
    // Two passes: the variance of centred values does not cancel catastrophically.
    float squares = 0.f;
    for (long long i = threadIdx.x; i < n; i += blockDim.x) {
      const float d = load(in + i) - mean;
      squares += d * d;
    }
    const float scale = rsqrtf(block_reduce(squares, Sum{}) / float(n) + eps);
    for (long long i = threadIdx.x; i < n; i += blockDim.x) {
      store(out + i, (load(in + i) - mean) * scale * load(weight + i) + load(bias + i));
    }
  }
}

template <class T>
__device__ void softmax(const T* x, T* y, long long rows, long long n, long long inner) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const long long base = (row / inner) * n * inner + row % inner;
    const T* in = x + base;
    T* out = y + base;
    float top = -INFINITY;
    for (long long i = threadIdx.x; i < n; i += blockDim.x) top = fmaxf(top, load(in + i * inner));
    top = block_reduce(top, Max{});
    float sum = 0.f;
    for (long long i = threadIdx.x; i < n; i += blockDim.x) sum += __expf(load(in + i * inner) - top);
    const float inverse = 1.f / block_reduce(sum, Sum{});
    for (long long i = threadIdx.x; i < n; i += blockDim.x) {
      store(out + i * inner, __expf(load(in + i * inner) - top) * inverse);
    }
  }
}

// Exact (erf) GELU, as torch.nn.functional.gelu(approximate='none').
template <class T>
__device__ void geglu(const T* a, const T* b, T* y, long long count) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    const float v = load(a + i);
    store(y + i, 0.5f * v * (1.f + erff(v * 0.70710678118654752f)) * load(b + i));
  }
}

}  // namespace

// C names, one per op and dtype, looked up by cuda_kernels.cpp.
#define OMNIRT_CUDA_OPS(suffix, T)                                                               \
  extern "C" __global__ void omnirt_rms_norm_##suffix(const T* x, const T* w, T* y,              \
                                                      long long rows, long long n, float eps) {  \
    rms_norm(x, w, y, rows, n, eps);                                                             \
  }                                                                                              \
  extern "C" __global__ void omnirt_layer_norm_##suffix(const T* x, const T* w, const T* b,      \
                                                        T* y, long long rows, long long n,       \
                                                        float eps) {                             \
    layer_norm(x, w, b, y, rows, n, eps);                                                        \
  }                                                                                              \
  extern "C" __global__ void omnirt_softmax_##suffix(const T* x, T* y, long long rows,           \
                                                     long long n, long long inner) {             \
    softmax(x, y, rows, n, inner);                                                               \
  }                                                                                              \
  extern "C" __global__ void omnirt_geglu_##suffix(const T* a, const T* b, T* y,                 \
                                                   long long count) {                            \
    geglu(a, b, y, count);                                                                       \
  }

OMNIRT_CUDA_OPS(f32, float)
OMNIRT_CUDA_OPS(f16, __half)
OMNIRT_CUDA_OPS(bf16, __nv_bfloat16)
