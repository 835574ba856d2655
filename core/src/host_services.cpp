#include "host_services.h"

#include "logging.h"

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
    detail.message.assign(message != nullptr ? message : "");
  } catch (...) {  // out of memory: keep status and code
    detail.message.clear();
  }
  t_plugin_error_recorded = true;
  return status;
}

void log(int32_t level, const char* backend, const char* message) noexcept {
  try {
    logger().log(to_spdlog_level(level), "[{}] {}", backend != nullptr ? backend : "?",
                 message != nullptr ? message : "");
    if (t_plugin_notes != nullptr && level >= OMNIRT_LOG_WARN && level < OMNIRT_LOG_OFF) {
      t_plugin_notes->add(backend, message);
    }
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
