// NCCL, found and dlopened on the first communicator like the CUDA runtime
// (DESIGN decision 4): the plugin links no NCCL. Found, in order: the backend
// option nccl_library (a path), $NCCL_HOME/lib, PyTorch's own copy
// (site-packages/nvidia/nccl/lib, torch/lib: next to the libtorch the engine
// was built with, then the usual Python prefixes), LD_LIBRARY_PATH, the
// loader's directories. One already mapped into the process (libtorch loaded
// it) is used as it is.
#ifndef OMNIRT_PLUGINS_CUDA_NCCL_LIBRARY_H_
#define OMNIRT_PLUGINS_CUDA_NCCL_LIBRARY_H_

#include <string>

#include "nccl_api.h"
#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/lazy_library.h"
#include "omnirt_plugin_common/symbol_table.h"
#include "omnirt_plugin_common/vendor_status.h"

namespace omnirt::cuda {

OMNIRT_DEFINE_SYMBOL_TABLE(NcclSymbols, OMNIRT_NCCL_SYMBOLS)

class NcclLibrary {
 public:
  /// `explicit_path`: the backend option nccl_library ("" when unset).
  explicit NcclLibrary(const std::string& explicit_path);

  /// Is there an NCCL to load? Looks for the file once; loads nothing.
  bool present() const { return library_.present(); }
  /// The symbols, loading NCCL on the first call. Throws UNAVAILABLE with the
  /// reason (not found, cannot load, older than 2.14).
  const NcclSymbols& get() { return library_.get(); }
  /// "NCCL 2.21.5 (<path>)"; loads NCCL.
  std::string describe();
  /// Throws the Error for `result` of `call` unless it is success, with
  /// NCCL's text (and the communicator's last error, when given).
  void check(ncclResult_t result, const char* call, ncclComm_t comm = nullptr);

 private:
  plugin_common::LazyLibrary<NcclSymbols> library_;
};

/// The row of nccl_status.cpp's table for an NCCL result: name and status.
plugin_common::VendorCode nccl_code(ncclResult_t result);

}  // namespace omnirt::cuda

#endif  // OMNIRT_PLUGINS_CUDA_NCCL_LIBRARY_H_
