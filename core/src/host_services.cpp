#include "host_services.h"

#include <functional>
#include <mutex>
#include <unordered_set>

#include "logging.h"
#include "plugin_text.h"

namespace omnirt {

namespace {

thread_local PluginError t_plugin_error;
thread_local bool t_plugin_error_recorded = false;
thread_local PluginNotes* t_plugin_notes = nullptr;

omnirt_status set_error(omnirt_status status, int64_t native_code, const char* message) noexcept {
  PluginError& detail = t_plugin_error;
  detail.status = status;
  detail.native_code = native_code;
  try {
    detail.message = read_plugin_text(message, OMNIRT_TEXT_MAX_MESSAGE).text;
  } catch (...) {  // out of memory: keep status and code
    detail.message.clear();
  }
  t_plugin_error_recorded = true;
  return status;
}

// A plugin that warns on every call (libtorch does, per run) must not flood
// the log: a warning line a backend logged before goes out at debug level.
// Bounded: past kRemembered distinct lines, new ones are simply logged.
bool logged_before(const std::string& backend, const std::string& message) {
  constexpr size_t kRemembered = 1024;
  static std::mutex mutex;
  static std::unordered_set<size_t> seen;
  const size_t key = std::hash<std::string>()(backend) * 31 + std::hash<std::string>()(message);
  std::lock_guard<std::mutex> lock(mutex);
  if (seen.count(key) > 0) return true;
  if (seen.size() < kRemembered) seen.insert(key);
  return false;
}

void log(int32_t level, const char* backend, const char* message) noexcept {
  try {
    const bool noted = t_plugin_notes != nullptr && level >= OMNIRT_LOG_WARN && level < OMNIRT_LOG_OFF;
    if (!noted && !logger().should_log(to_spdlog_level(level))) return;
    // Repaired like all plugin text: a newline or escape sequence in it
    // cannot forge log lines or reach a terminal.
    const std::string name = backend != nullptr ? read_plugin_text(backend, OMNIRT_TEXT_MAX_NAME).text : "?";
    const std::string text = read_plugin_text(message, OMNIRT_TEXT_MAX_MESSAGE).text;
    if (noted) {
      // Inside a call given a run report, the report keeps it (once, counted).
      t_plugin_notes->add(name.c_str(), text.c_str());
      level = OMNIRT_LOG_DEBUG;
    } else if (level >= OMNIRT_LOG_WARN && level < OMNIRT_LOG_OFF && logged_before(name, text)) {
      level = OMNIRT_LOG_DEBUG;
    }
    logger().log(to_spdlog_level(level), "[{}] {}", name, text);
  } catch (...) {  // logging must never fail a plugin
  }
}

const omnirt_host_services kServices = {sizeof(omnirt_host_services), OMNIRT_ABI_VERSION,
                                        &set_error, &log};

}  // namespace

const omnirt_host_services* host_services() noexcept { return &kServices; }

void clear_plugin_error() noexcept { t_plugin_error_recorded = false; }

const PluginError* recorded_plugin_error() noexcept {
  return t_plugin_error_recorded ? &t_plugin_error : nullptr;
}

PluginNotes::PluginNotes() noexcept : previous_(t_plugin_notes) { t_plugin_notes = this; }

PluginNotes::~PluginNotes() { t_plugin_notes = previous_; }

void PluginNotes::add(const char* backend, const char* message) {
  notes_.push_back({backend != nullptr ? backend : "?", message != nullptr ? message : ""});
}

const PluginError* take_plugin_error(omnirt_status status) noexcept {
  const bool matches = t_plugin_error_recorded && t_plugin_error.status == status;
  t_plugin_error_recorded = false;
  return matches ? &t_plugin_error : nullptr;
}

}  // namespace omnirt
