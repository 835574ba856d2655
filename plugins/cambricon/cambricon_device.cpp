// Devices of the cambricon backend.
#include <dlpack/dlpack.h>

#include <cstdio>
#include <memory>

#include "cambricon_backend.h"
#include "cnrt_status.h"

namespace omnirt::cambricon {

// The first call that needs devices loads CNRT. A runtime that cannot load
// has no devices; is_available() then says why.
int32_t CambriconBackend::device_count() {
  const CnrtRuntime* rt = runtime_.try_get();
  return rt != nullptr ? rt->device_count() : 0;
}

void CambriconBackend::device_info(int32_t device, omnirt_device_info& info) {
  CnrtRuntime& rt = runtime();
  rt.check_device(device);
  const CnrtSymbols& cnrt = rt.api();
  info.dl_device_type = kDLExtDev;
  auto prop = std::make_unique<cnrtDeviceProp_t>();
  const bool named = cnrt.cnrtGetDeviceProperties != nullptr &&
                     cnrt.cnrtGetDeviceProperties(prop.get(), device) == cnrtSuccess;
  plugin_common::copy_text(info.name, named ? prop->name : "Cambricon MLU");
  if (cnrt.cnrtDeviceGetAttribute == nullptr) return;
  // A three-digit ISA version (372, 592) names the architecture as cncc's
  // --bang-arch does: mtp_372.
  int value = 0;
  if (cnrt.cnrtDeviceGetAttribute(&value, cnrtAttrISAVersion, device) == cnrtSuccess) {
    std::snprintf(info.arch, sizeof info.arch, "mtp_%d", value);
  }
  int clusters = 0;
  int cores_per_cluster = 0;
  if (cnrt.cnrtDeviceGetAttribute(&clusters, cnrtAttrClusterCount, device) == cnrtSuccess &&
      cnrt.cnrtDeviceGetAttribute(&cores_per_cluster, cnrtAttrMcorePerCluster, device) ==
          cnrtSuccess) {
    info.compute_units = clusters * cores_per_cluster;
  }
  if (cnrt.cnrtDeviceGetAttribute(&value, cnrtAttrTotalMemSize, device) == cnrtSuccess) {
    info.total_memory_bytes = static_cast<uint64_t>(value) << 20;
  }
}

void CambriconBackend::device_synchronize(int32_t device) {
  CnrtRuntime& rt = runtime();
  auto scope = rt.on_device(device);
  rt.check(rt.api().cnrtSyncDevice(), "cnrtSyncDevice");
}

}  // namespace omnirt::cambricon
