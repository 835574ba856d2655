// libtorch's warnings, gathered while an engine call runs on the caller's
// thread and handed on once each: a model that warns on every run (a resized
// output, a deprecated op) must not flood the embedder's stderr. The engine
// hands them to the plugin's sink, which logs them with the host; the host
// files them into the run report of the call (docs/run-report.md).
#ifndef OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_WARNING_CAPTURE_H_
#define OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_WARNING_CAPTURE_H_

#include <c10/util/Exception.h>
#include <torch/version.h>

#include <string>
#include <vector>

namespace omnirt::torch_common {

/// Where warnings go; called on the thread of the engine call that raised them.
using WarningSink = void (*)(const char* message);

/// Sets the sink of this engine (process-wide; nullptr: warnings are dropped).
void set_warning_sink(WarningSink sink) noexcept;

/// While alive, libtorch warnings raised on this thread are collected
/// instead of printed (libtorch's handler is per thread: other threads and
/// other users of libtorch keep theirs); its destructor hands each distinct
/// warning to the sink once, in the order first raised.
class WarningCapture final : public c10::WarningHandler {
 public:
  WarningCapture();
  ~WarningCapture() override;
  WarningCapture(const WarningCapture&) = delete;
  WarningCapture& operator=(const WarningCapture&) = delete;

#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning& warning) override;
#else
  void process(const c10::SourceLocation& where, const std::string& message, bool verbatim) override;
#endif

 private:
  void keep(const std::string& message);

  c10::WarningHandler* previous_;
  std::vector<std::string> messages_;
};

}  // namespace omnirt::torch_common

#endif  // OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_WARNING_CAPTURE_H_
