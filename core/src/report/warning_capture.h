// Warnings plugins log while a call with a run report runs on this thread go
// into that report, once each with a count, instead of the host's log: a
// model whose engine warns on every run (libtorch does) fills one report
// entry, not the embedder's stderr.
#pragma once

#include <cstdint>

#include "omnirt/host.h"

namespace omnirt::report {

/// While alive, host_services' log files WARN and ERROR lines of this thread
/// into `report` (when not NULL; nested captures: the innermost wins).
class WarningCapture {
 public:
  explicit WarningCapture(omnirt_report* report) noexcept;
  ~WarningCapture();
  WarningCapture(const WarningCapture&) = delete;
  WarningCapture& operator=(const WarningCapture&) = delete;

  /// The report capturing this thread's warnings, or nullptr.
  static omnirt_report* current() noexcept;

 private:
  omnirt_report* previous_;
  bool active_;
};

}  // namespace omnirt::report
