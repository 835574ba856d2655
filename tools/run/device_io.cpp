#include "device_io.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "omnirt/cpp/host.hpp"

namespace omnirt::run {
namespace {

bool host_memory(int32_t device_type) {
  return device_type == kDLCPU || device_type == kDLCUDAHost;
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

HostTensor to_host(omnirt_backend* backend, const DLTensor& output) {
  if (!is_compact(output)) throw std::runtime_error("an output is not contiguous; cannot save it");
  HostTensor host;
  host.shape.assign(output.shape, output.shape + output.ndim);
  host.dtype = output.dtype;
  host.bytes.resize(static_cast<size_t>(host.numel()) * ((output.dtype.bits + 7) / 8));
  if (host.bytes.empty()) return host;
  const auto* src = static_cast<const uint8_t*>(output.data) + output.byte_offset;
  if (host_memory(output.device.device_type)) {
    std::memcpy(host.bytes.data(), src, host.bytes.size());
  } else {
    check(omnirt_memcpy(backend, host.bytes.data(), src, host.bytes.size(),
                        OMNIRT_MEMCPY_DEVICE_TO_HOST),
          "copy an output to the host");
  }
  return host;
}

}  // namespace omnirt::run
