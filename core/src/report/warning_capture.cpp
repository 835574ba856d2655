#include "report/warning_capture.h"

namespace omnirt::report {
namespace {

thread_local omnirt_report* t_capturing = nullptr;

}  // namespace

WarningCapture::WarningCapture(omnirt_report* report) noexcept
    : previous_(t_capturing), active_(report != nullptr) {
  if (active_) t_capturing = report;
}

WarningCapture::~WarningCapture() {
  if (active_) t_capturing = previous_;
}

omnirt_report* WarningCapture::current() noexcept { return t_capturing; }

}  // namespace omnirt::report
