#include "host_services.h"

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

void log(int32_t level, const char* backend, const char* message) noexcept {
  try {
    const spdlog::level::level_enum spd_level = to_spdlog_level(level);
    const bool noted = t_plugin_notes != nullptr && level >= OMNIRT_LOG_WARN && level < OMNIRT_LOG_OFF;
    if (!noted && !logger().should_log(spd_level)) return;
    // Repaired like all plugin text: a newline or escape sequence in it
    // cannot forge log lines or reach a terminal.
    const std::string name = backend != nullptr ? read_plugin_text(backend, OMNIRT_TEXT_MAX_NAME).text : "?";
    const std::string text = read_plugin_text(message, OMNIRT_TEXT_MAX_MESSAGE).text;
    logger().log(spd_level, "[{}] {}", name, text);
    if (noted) t_plugin_notes->add(name.c_str(), text.c_str());
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
