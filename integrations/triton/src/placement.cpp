#include "placement.h"

#include "error.h"

namespace omnirt::triton {
namespace {

bool is_host_memory(int32_t device_type) { return device_type == kDLCPU || device_type == kDLCUDAHost; }

const char* kind_name(TRITONSERVER_InstanceGroupKind kind) {
  switch (kind) {
    case TRITONSERVER_INSTANCEGROUPKIND_CPU:
      return "KIND_CPU";
    case TRITONSERVER_INSTANCEGROUPKIND_GPU:
      return "KIND_GPU";
    case TRITONSERVER_INSTANCEGROUPKIND_MODEL:
      return "KIND_MODEL";
    default:
      return "KIND_AUTO";
  }
}

omnirt_capabilities capabilities(omnirt_backend* backend, const std::string& name) {
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  check_omnirt(omnirt_get_capabilities(backend, &caps), "OmniRT backend '" + name + "'");
  return caps;
}

std::string name_of(omnirt_backend* backend) {
  omnirt_backend_info info{};
  info.struct_size = sizeof info;
  check_omnirt(omnirt_backend_get_info(backend, &info), "reading an OmniRT backend's info");
  return info.name;
}

// Whether a backend of this memory suits the kind; why not, when it does not.
std::string misfit(TRITONSERVER_InstanceGroupKind kind, bool host_memory) {
  if (kind == TRITONSERVER_INSTANCEGROUPKIND_CPU && !host_memory) {
    return "it computes in its own device memory, and KIND_CPU needs a backend on host memory "
           "(use KIND_GPU, or omnirt_backend 'cpu')";
  }
  if (kind == TRITONSERVER_INSTANCEGROUPKIND_GPU && host_memory) {
    return "it computes on host memory, and KIND_GPU needs a backend with device memory "
           "(use KIND_CPU, or a device backend such as 'cuda')";
  }
  return {};
}

// The first available backend fitting `kind` that runs modules; the error
// lists why each backend was passed over.
omnirt_backend* auto_backend(omnirt_host* host, TRITONSERVER_InstanceGroupKind kind) {
  std::string passed_over;
  const size_t count = omnirt_host_backend_count(host);
  for (size_t i = 0; i < count; ++i) {
    omnirt_backend* backend = nullptr;
    check_omnirt(omnirt_host_backend_at(host, i, &backend), "listing OmniRT backends");
    omnirt_backend_info info{};
    info.struct_size = sizeof info;
    check_omnirt(omnirt_backend_get_info(backend, &info), "reading an OmniRT backend's info");
    std::string why;
    if (info.available == 0) {
      why = std::string("unavailable: ") + info.unavailable_reason;
    } else {
      const omnirt_capabilities caps = capabilities(backend, info.name);
      if ((caps.features & OMNIRT_FEATURE_MODULES) == 0) {
        why = "runs no modules";
      } else {
        why = misfit(kind, is_host_memory(caps.dl_device_type));
      }
    }
    if (why.empty()) return backend;
    passed_over += (passed_over.empty() ? ": " : "; ") + std::string(info.name) + ": " + why;
  }
  throw Error(TRITONSERVER_ERROR_UNAVAILABLE,
              std::string("no OmniRT backend can serve ") + kind_name(kind) + " instances" +
                  (count == 0 ? ": no backend was found (see omnirt-probe --verbose)" : passed_over));
}

}  // namespace

omnirt_backend* select_backend(omnirt_host* host, const std::string& name) {
  omnirt_backend* backend = nullptr;
  check_omnirt(omnirt_host_get_backend(host, name.c_str(), &backend),
               "OmniRT backend '" + name + "' cannot be used");
  return backend;
}

Placement place_instance(omnirt_host* host, const std::string& name, TRITONSERVER_InstanceGroupKind kind,
                         int32_t device_id) {
  Placement placement;
  placement.backend = name == "auto" ? auto_backend(host, kind) : select_backend(host, name);
  placement.backend_name = name_of(placement.backend);
  const omnirt_capabilities caps = capabilities(placement.backend, placement.backend_name);
  placement.device_type = caps.dl_device_type;
  placement.host_memory = is_host_memory(caps.dl_device_type);
  const std::string why = misfit(kind, placement.host_memory);
  if (!why.empty()) {
    throw Error(TRITONSERVER_ERROR_INVALID_ARG, std::string(kind_name(kind)) +
                                                    " instances cannot run on OmniRT backend '" +
                                                    placement.backend_name + "': " + why);
  }
  placement.device = kind == TRITONSERVER_INSTANCEGROUPKIND_GPU ? device_id : 0;
  if (placement.device < 0 || placement.device >= caps.device_count) {
    throw Error(TRITONSERVER_ERROR_INVALID_ARG,
                std::string(kind_name(kind)) + " device " + std::to_string(placement.device) +
                    " does not exist on OmniRT backend '" + placement.backend_name + "', which has " +
                    std::to_string(caps.device_count) + " device(s)");
  }
  return placement;
}

}  // namespace omnirt::triton
