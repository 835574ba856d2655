#include "cncl_library.h"

#include "omnirt_plugin_common/vendor_status.h"

namespace omnirt::cambricon {
namespace {

#define OMNIRT_CNCL_CODE(code, status) \
  { code, #code, OMNIRT_STATUS_##status }

// Codes from cncl.h; an asynchronous failure (a peer gone) counts as a rank
// that did not join (TIMEOUT), as the ABI asks.
const plugin_common::VendorCode kCodes[] = {
    OMNIRT_CNCL_CODE(CNCL_RET_SUCCESS, OK),
    OMNIRT_CNCL_CODE(CNCL_RET_ERR_INTERNAL, INTERNAL),
    OMNIRT_CNCL_CODE(CNCL_RET_ERR_UNSUPPORTED, NOT_SUPPORTED),
    OMNIRT_CNCL_CODE(CNCL_RET_ERR_NULL_POINTER, INVALID_ARGUMENT),
    OMNIRT_CNCL_CODE(CNCL_RET_ERR_INIT, INTERNAL),
    OMNIRT_CNCL_CODE(CNCL_RET_ERR_NOT_INIT, INVALID_ARGUMENT),
    OMNIRT_CNCL_CODE(CNCL_RET_ERR_REINIT, ALREADY_EXISTS),
    OMNIRT_CNCL_CODE(CNCL_RET_ERR_SYSTEM, INTERNAL),
    OMNIRT_CNCL_CODE(CNCL_RET_ERR_SYS_MALLOC, OUT_OF_MEMORY),
    OMNIRT_CNCL_CODE(CNCL_RET_ERR_SYS_SOCKET, TIMEOUT),
    OMNIRT_CNCL_CODE(CNCL_RET_ERR_MLU_RUNTIME, INTERNAL),
    OMNIRT_CNCL_CODE(CNCL_RET_ERR_CNRT_MALLOC, OUT_OF_MEMORY),
    OMNIRT_CNCL_CODE(CNCL_RET_ASYNC_IN_PROGRESS, NOT_READY),
    OMNIRT_CNCL_CODE(CNCL_RET_ASYNC_ERROR, TIMEOUT),
    OMNIRT_CNCL_CODE(CNCL_RET_ERR_ARGUMENTS, INVALID_ARGUMENT),
};

plugin_common::LibraryLocator cncl_locator(const std::string& explicit_path) {
  return plugin_common::LibraryLocator(
      {"libcncl.so", explicit_path, {{"NEUWARE_HOME", "lib64"}}, {"/usr/local/neuware/lib64"}, "cncl_library"});
}

}  // namespace

CnclLibrary::CnclLibrary(const std::string& explicit_path)
    : library_("cambricon: collectives", cncl_locator(explicit_path),
               "install Neuware's CNCL, or set backend option cncl_library") {}

std::string CnclLibrary::describe() {
  const CnclSymbols& api = get();
  int major = 0, minor = 0, patch = 0;
  if (api.cnclGetLibVersion != nullptr && api.cnclGetLibVersion(&major, &minor, &patch) == CNCL_RET_SUCCESS) {
    return "CNCL " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch) + " (" +
           library_.path() + ")";
  }
  return "CNCL (" + library_.path() + ")";
}

void CnclLibrary::check(cnclResult_t result, const char* call) {
  if (result == CNCL_RET_SUCCESS) return;
  const CnclSymbols& api = get();
  const char* text = api.cnclGetErrorStr != nullptr ? api.cnclGetErrorStr(result) : nullptr;
  plugin_common::fail_vendor("cambricon", call, plugin_common::lookup(kCodes, result), text != nullptr ? text : "");
}

}  // namespace omnirt::cambricon
