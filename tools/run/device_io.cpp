#include "device_io.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "omnirt/cpp/host.hpp"

namespace omnirt::run {
namespace {

bool host_memory(int32_t device_type) {
  return device_type == kDLCPU || device_type == kDLCUDAHost;
}

// Elements from the first to the last one a strided tensor reaches, and the
// first one's offset (in elements) from `data`: what a copy must bring over.
struct Span {
  int64_t first = 0;
  int64_t count = 0;
};
Span span_of(const DLTensor& t) {
  Span s;
  int64_t last = 0;
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] == 0) return {};
    const int64_t reach = (t.shape[d] - 1) * t.strides[d];
    (reach < 0 ? s.first : last) += reach;
  }
  s.count = last - s.first + 1;
  return s;
}

// Copies the elements of strided `t`, whose span starts at `span` (host
// memory), into `out` in row-major order.
void gather(const DLTensor& t, const uint8_t* span, int64_t first, size_t element, uint8_t* out) {
  std::vector<int64_t> index(static_cast<size_t>(t.ndim), 0);
  const int64_t total = [&] {
    int64_t n = 1;
    for (int32_t d = 0; d < t.ndim; ++d) n *= t.shape[d];
    return n;
  }();
  for (int64_t i = 0; i < total; ++i) {
    int64_t offset = -first;
    for (int32_t d = 0; d < t.ndim; ++d) offset += index[static_cast<size_t>(d)] * t.strides[d];
    std::memcpy(out + static_cast<size_t>(i) * element, span + static_cast<size_t>(offset) * element,
                element);
    for (int32_t d = t.ndim - 1; d >= 0; --d) {  // next index, last dimension fastest
      if (++index[static_cast<size_t>(d)] < t.shape[d]) break;
      index[static_cast<size_t>(d)] = 0;
    }
  }
}

}  // namespace

void check(omnirt_status status, const char* what) {
  if (status != OMNIRT_STATUS_OK) {
    throw std::runtime_error(std::string(what) + ": " + omnirt_status_name(status) + ": " +
                             omnirt_last_error()->message);
  }
}

DeviceInputs::DeviceInputs(omnirt_backend* backend, int32_t device, std::vector<HostTensor>& inputs)
    : backend_(backend), device_(device) {
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  check(omnirt_get_capabilities(backend, &caps), "get capabilities");
  for (HostTensor& input : inputs) {
    DLTensor t = input.view();
    t.device = DLDevice{static_cast<DLDeviceType>(caps.dl_device_type), device};
    if (!host_memory(caps.dl_device_type) && !input.bytes.empty()) {
      void* ptr = nullptr;
      check(omnirt_malloc(backend, device, input.bytes.size(), &ptr), "allocate an input");
      owned_.push_back(ptr);
      check(omnirt_memcpy(backend, ptr, input.bytes.data(), input.bytes.size(),
                          OMNIRT_MEMCPY_HOST_TO_DEVICE),
            "copy an input to the device");
      t.data = ptr;
    }
    tensors_.push_back(t);
  }
}

DeviceInputs::~DeviceInputs() {
  for (void* ptr : owned_) omnirt_free(backend_, device_, ptr);
}

// `size` bytes at `src`, in host or the backend's device memory, into `dst`.
void copy_to_host(omnirt_backend* backend, const DLTensor& output, const uint8_t* src, size_t size,
                  uint8_t* dst) {
  if (host_memory(output.device.device_type)) {
    std::memcpy(dst, src, size);
  } else {
    check(omnirt_memcpy(backend, dst, src, size, OMNIRT_MEMCPY_DEVICE_TO_HOST),
          "copy an output to the host");
  }
}

HostTensor to_host(omnirt_backend* backend, const DLTensor& output) {
  HostTensor host;
  host.shape.assign(output.shape, output.shape + output.ndim);
  host.dtype = output.dtype;
  const size_t element = (output.dtype.bits * size_t{output.dtype.lanes} + 7) / 8;
  host.bytes.resize(static_cast<size_t>(host.numel()) * element);
  if (host.bytes.empty()) return host;
  const auto* data = static_cast<const uint8_t*>(output.data) + output.byte_offset;
  if (is_compact(output)) {
    copy_to_host(backend, output, data, host.bytes.size(), host.bytes.data());
    return host;
  }
  // Strided (a transpose, a slice): bring the span it reaches over, then
  // gather its elements in row-major order, as .npy stores them.
  const Span span = span_of(output);
  std::vector<uint8_t> staged(static_cast<size_t>(span.count) * element);
  copy_to_host(backend, output, data + span.first * static_cast<int64_t>(element), staged.size(),
               staged.data());
  gather(output, staged.data(), span.first, element, host.bytes.data());
  return host;
}

}  // namespace omnirt::run
