// CNCL for the cambricon backend's collectives: libcncl.so, found where CNRT
// is (backend option cncl_library, $NEUWARE_HOME/lib64, ...), dlopened on the
// first communicator (plugin_common/lazy_library.h), its results mapped to
// OmniRT statuses.
#ifndef OMNIRT_PLUGINS_CAMBRICON_CNCL_LIBRARY_H_
#define OMNIRT_PLUGINS_CAMBRICON_CNCL_LIBRARY_H_

#include <string>

#include "cncl_api.h"
#include "omnirt_plugin_common/lazy_library.h"
#include "omnirt_plugin_common/symbol_table.h"

namespace omnirt::cambricon {

OMNIRT_DEFINE_SYMBOL_TABLE(CnclSymbols, OMNIRT_CNCL_SYMBOLS)

class CnclLibrary {
 public:
  /// `explicit_path`: the backend option cncl_library ("" when unset).
  explicit CnclLibrary(const std::string& explicit_path);

  bool present() const { return library_.present(); }
  const CnclSymbols& get() { return library_.get(); }
  /// "CNCL 1.25.0 (<path>)", or "CNCL (<path>)" without cnclGetLibVersion.
  std::string describe();
  /// Throws the Error for `result` of `call` unless it is CNCL_RET_SUCCESS.
  void check(cnclResult_t result, const char* call);

 private:
  plugin_common::LazyLibrary<CnclSymbols> library_;
};

}  // namespace omnirt::cambricon

#endif  // OMNIRT_PLUGINS_CAMBRICON_CNCL_LIBRARY_H_
