#include "module/engine_load.h"

#include "plugin_call.h"
#include "stopwatch.h"

namespace omnirt::wrap {

EngineLoad load_engine(omnirt_backend& backend, const std::string& format) {
  using V = omnirt_backend_vtable;
  EngineLoad load;
  char description[256] = "";
  const Stopwatch watch;
  load.status = call_slot<&V::engine_prepare>(backend, "engine_prepare", format.c_str(), description,
                                              sizeof description);
  load.elapsed_ns = watch.elapsed_ns();
  description[sizeof description - 1] = '\0';
  load.engine = description;
  if (load.status != OMNIRT_STATUS_OK) load.reason = omnirt_last_error()->message;
  return load;
}

}  // namespace omnirt::wrap
