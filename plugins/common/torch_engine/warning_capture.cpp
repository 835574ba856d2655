#include "warning_capture.h"

#include <algorithm>
#include <atomic>

namespace omnirt::torch_common {
namespace {

std::atomic<WarningSink> g_sink{nullptr};

// libtorch renamed its handler API in 2.0 (c10::Warning became a class).
#if TORCH_VERSION_MAJOR >= 2
c10::WarningHandler* current_handler() { return c10::WarningUtils::get_warning_handler(); }
void set_handler(c10::WarningHandler* handler) { c10::WarningUtils::set_warning_handler(handler); }
#else
c10::WarningHandler* current_handler() { return c10::Warning::get_warning_handler(); }
void set_handler(c10::WarningHandler* handler) { c10::Warning::set_warning_handler(handler); }
#endif

}  // namespace

void set_warning_sink(WarningSink sink) noexcept { g_sink.store(sink); }

WarningCapture::WarningCapture() : previous_(current_handler()) { set_handler(this); }

WarningCapture::~WarningCapture() {
  set_handler(previous_);
  const WarningSink sink = g_sink.load();
  if (sink == nullptr) return;
  for (const std::string& message : messages_) sink(message.c_str());
}

#if TORCH_VERSION_MAJOR >= 2
void WarningCapture::process(const c10::Warning& warning) { keep(warning.msg()); }
#else
void WarningCapture::process(const c10::SourceLocation& /*where*/, const std::string& message,
                             bool /*verbatim*/) {
  keep(message);
}
#endif

void WarningCapture::keep(const std::string& message) {
  try {
    if (std::find(messages_.begin(), messages_.end(), message) == messages_.end()) {
      messages_.push_back(message);
    }
  } catch (...) {  // out of memory: a lost warning must not fail the op that raised it
  }
}

}  // namespace omnirt::torch_common
