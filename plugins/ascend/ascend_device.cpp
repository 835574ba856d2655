// Devices of the ascend backend.
#include <dlpack/dlpack.h>

#include "acl_status.h"
#include "ascend_backend.h"

namespace omnirt::ascend {

// The first call that needs devices loads AscendCL. A runtime that cannot
// load has no devices; is_available() then says why.
int32_t AscendBackend::device_count() {
  const AclRuntime* rt = runtime_.try_get();
  return rt != nullptr ? rt->device_count() : 0;
}

void AscendBackend::device_info(int32_t device, omnirt_device_info& info) {
  AclRuntime& rt = runtime();
  const AclSymbols& acl = rt.api();
  auto scope = rt.on_device(device);
  info.dl_device_type = kDLExtDev;
  // AscendCL names the SoC ("Ascend910B4"), not a product; it is both.
  const char* soc = acl.aclrtGetSocName != nullptr ? acl.aclrtGetSocName() : nullptr;
  plugin_common::copy_text(info.name, soc != nullptr ? soc : "Ascend NPU");
  plugin_common::copy_text(info.arch, soc);
  if (acl.aclrtGetMemInfo != nullptr) {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    mem_get_info(device, free_bytes, total_bytes);
    info.total_memory_bytes = total_bytes;
  }
  int64_t ai_cores = 0;
  if (acl.aclGetDeviceCapability != nullptr &&
      acl.aclGetDeviceCapability(static_cast<uint32_t>(device), ACL_DEVICE_INFO_AI_CORE_NUM,
                                 &ai_cores) == ACL_SUCCESS) {
    info.compute_units = static_cast<int32_t>(ai_cores);
  } else {
    rt.forget_error_text();
  }
}

void AscendBackend::device_synchronize(int32_t device) {
  AclRuntime& rt = runtime();
  auto scope = rt.on_device(device);
  rt.check(rt.api().aclrtSynchronizeDevice(), "aclrtSynchronizeDevice");
}

}  // namespace omnirt::ascend
