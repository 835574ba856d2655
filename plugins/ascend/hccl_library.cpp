#include "hccl_library.h"

#include "omnirt_plugin_common/vendor_status.h"

namespace omnirt::ascend {
namespace {

#define OMNIRT_HCCL_CODE(code, status) \
  { code, #code, OMNIRT_STATUS_##status }

// Codes from hccl_types.h; a peer that failed or left counts as one that did
// not join (TIMEOUT), as the ABI asks.
const plugin_common::VendorCode kCodes[] = {
    OMNIRT_HCCL_CODE(HCCL_SUCCESS, OK),
    OMNIRT_HCCL_CODE(HCCL_E_PARA, INVALID_ARGUMENT),
    OMNIRT_HCCL_CODE(HCCL_E_PTR, INVALID_ARGUMENT),
    OMNIRT_HCCL_CODE(HCCL_E_MEMORY, OUT_OF_MEMORY),
    OMNIRT_HCCL_CODE(HCCL_E_INTERNAL, INTERNAL),
    OMNIRT_HCCL_CODE(HCCL_E_NOT_SUPPORT, NOT_SUPPORTED),
    OMNIRT_HCCL_CODE(HCCL_E_NOT_FOUND, NOT_FOUND),
    OMNIRT_HCCL_CODE(HCCL_E_UNAVAIL, UNAVAILABLE),
    OMNIRT_HCCL_CODE(HCCL_E_SYSCALL, INTERNAL),
    OMNIRT_HCCL_CODE(HCCL_E_TIMEOUT, TIMEOUT),
    OMNIRT_HCCL_CODE(HCCL_E_TCP_CONNECT, TIMEOUT),
    OMNIRT_HCCL_CODE(HCCL_E_ROCE_CONNECT, TIMEOUT),
    OMNIRT_HCCL_CODE(HCCL_E_TCP_TRANSFER, TIMEOUT),
    OMNIRT_HCCL_CODE(HCCL_E_ROCE_TRANSFER, TIMEOUT),
    OMNIRT_HCCL_CODE(HCCL_E_RUNTIME, INTERNAL),
    OMNIRT_HCCL_CODE(HCCL_E_DRV, DEVICE_LOST),
    OMNIRT_HCCL_CODE(HCCL_E_NETWORK, TIMEOUT),
    OMNIRT_HCCL_CODE(HCCL_E_AGAIN, NOT_READY),
    OMNIRT_HCCL_CODE(HCCL_E_REMOTE, TIMEOUT),
};

plugin_common::LibraryLocator hccl_locator(const std::string& explicit_path) {
  return plugin_common::LibraryLocator({"libhccl.so",
                                        explicit_path,
                                        {{"ASCEND_HOME_PATH", "lib64"}, {"ASCEND_TOOLKIT_HOME", "lib64"}},
                                        {"/usr/local/Ascend/ascend-toolkit/latest/lib64"},
                                        "hccl_library"});
}

}  // namespace

HcclLibrary::HcclLibrary(const std::string& explicit_path)
    : library_("ascend: collectives", hccl_locator(explicit_path),
               "install CANN's HCCL, or set backend option hccl_library") {}

std::string HcclLibrary::describe() {
  get();
  return "HCCL (" + library_.path() + ")";
}

omnirt_status HcclLibrary::status_of(HcclResult result) { return plugin_common::lookup(kCodes, result).status; }

void HcclLibrary::check(HcclResult result, const char* call) {
  if (result == HCCL_SUCCESS) return;
  const HcclSymbols& api = get();
  const char* text = api.HcclGetErrorString != nullptr ? api.HcclGetErrorString(result) : nullptr;
  plugin_common::fail_vendor("ascend", call, plugin_common::lookup(kCodes, result), text != nullptr ? text : "");
}

}  // namespace omnirt::ascend
