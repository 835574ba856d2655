// What a vetting child (tools/vet) tells the host over its report pipe, and
// how the host reads it: one line per step, so that when the plugin's code
// ends the child, the last line names the stage it was in.
//
//   step <stage>               a load stage (1 dlopen .. 5 available) starts
//   loaded <stage>             the load finished, having reached <stage>
//   step 6                     unloading (destroy, dlclose) starts
//   done                       everything finished; the child exits 0 next
#ifndef OMNIRT_CORE_VETTING_VET_PROTOCOL_H_
#define OMNIRT_CORE_VETTING_VET_PROTOCOL_H_

#include <string>
#include <string_view>

#include "omnirt/host.h"

namespace omnirt::vetting {

/// The child's file descriptor for its report (the write end of a pipe).
inline constexpr int kReportFd = 3;
/// The step after the last load stage: destroying the instance and unloading.
inline constexpr int kUnloadStep = OMNIRT_STAGE_AVAILABLE + 1;

/// The lines a child writes.
std::string step_line(int step);
std::string loaded_line(omnirt_load_stage reached);
std::string done_line();

/// "dlopen" ... "available" for a load stage, "unload" for kUnloadStep.
const char* step_name(int step) noexcept;

/// The host's reading of one child's report, fed as bytes arrive.
class ReportReader {
 public:
  /// Takes the next bytes of the report. Garbage and anything past a bound
  /// are ignored: the plugin runs in the child and may write to the pipe.
  void feed(std::string_view bytes);

  /// The step last started, 0 before the first.
  int step() const noexcept { return step_; }
  /// The stage the load reached: from "loaded" once it came, else the stage
  /// before the step in progress.
  omnirt_load_stage reached() const noexcept;
  /// "done" came.
  bool done() const noexcept { return done_; }

 private:
  void take_line(std::string_view line);

  std::string partial_;
  size_t total_ = 0;
  int step_ = 0;
  int loaded_stage_ = -1;
  bool done_ = false;
};

}  // namespace omnirt::vetting

#endif  // OMNIRT_CORE_VETTING_VET_PROTOCOL_H_
