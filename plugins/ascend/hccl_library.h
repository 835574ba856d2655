// HCCL for the ascend backend's collectives: libhccl.so, found where
// AscendCL is (backend option hccl_library, $ASCEND_HOME_PATH/lib64, ...),
// dlopened on the first communicator (plugin_common/lazy_library.h), its
// results mapped to OmniRT statuses.
#ifndef OMNIRT_PLUGINS_ASCEND_HCCL_LIBRARY_H_
#define OMNIRT_PLUGINS_ASCEND_HCCL_LIBRARY_H_

#include <string>

#include "hccl_api.h"
#include "omnirt_plugin_common/lazy_library.h"
#include "omnirt_plugin_common/symbol_table.h"

namespace omnirt::ascend {

OMNIRT_DEFINE_SYMBOL_TABLE(HcclSymbols, OMNIRT_HCCL_SYMBOLS)

class HcclLibrary {
 public:
  /// `explicit_path`: the backend option hccl_library ("" when unset).
  explicit HcclLibrary(const std::string& explicit_path);

  bool present() const { return library_.present(); }
  const HcclSymbols& get() { return library_.get(); }
  /// "HCCL (<path>)": HCCL reports no version of its own.
  std::string describe();
  /// Throws the Error for `result` of `call` unless it is HCCL_SUCCESS.
  void check(HcclResult result, const char* call);
  /// OmniRT's status for an HCCL result.
  static omnirt_status status_of(HcclResult result);

 private:
  plugin_common::LazyLibrary<HcclSymbols> library_;
};

}  // namespace omnirt::ascend

#endif  // OMNIRT_PLUGINS_ASCEND_HCCL_LIBRARY_H_
