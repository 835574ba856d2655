#include "vetting/vet_protocol.h"

#include <charconv>

namespace omnirt::vetting {
namespace {

/// More than any honest report: a child that writes more is not believed further.
constexpr size_t kMaxReportBytes = 4096;

bool parse_int(std::string_view text, int* value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::string step_line(int step) { return "step " + std::to_string(step) + "\n"; }

std::string loaded_line(omnirt_load_stage reached) {
  return "loaded " + std::to_string(static_cast<int>(reached)) + "\n";
}

std::string done_line() { return "done\n"; }

const char* step_name(int step) noexcept {
  return step == kUnloadStep ? "unload" : omnirt_load_stage_name(step);
}

void ReportReader::feed(std::string_view bytes) {
  for (const char c : bytes) {
    if (total_++ >= kMaxReportBytes) return;
    if (c != '\n') {
      partial_.push_back(c);
      continue;
    }
    take_line(partial_);
    partial_.clear();
  }
}

void ReportReader::take_line(std::string_view line) {
  int value = 0;
  if (line == "done") {
    done_ = true;
  } else if (line.substr(0, 5) == "step " && parse_int(line.substr(5), &value) && value >= OMNIRT_STAGE_DLOPEN &&
             value <= kUnloadStep) {
    step_ = value;
  } else if (line.substr(0, 7) == "loaded " && parse_int(line.substr(7), &value) && value >= OMNIRT_STAGE_FOUND &&
             value <= OMNIRT_STAGE_AVAILABLE) {
    loaded_stage_ = value;
  }
}

omnirt_load_stage ReportReader::reached() const noexcept {
  if (loaded_stage_ >= 0) return static_cast<omnirt_load_stage>(loaded_stage_);
  return static_cast<omnirt_load_stage>(step_ > OMNIRT_STAGE_DLOPEN ? step_ - 1 : OMNIRT_STAGE_FOUND);
}

}  // namespace omnirt::vetting
