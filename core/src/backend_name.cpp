#include "backend_name.h"

namespace omnirt {

bool is_valid_backend_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > kMaxBackendNameLength) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool looks_like_plugin_file(std::string_view file_name) noexcept {
  return file_name.size() > kPluginFilePrefix.size() + kPluginFileSuffix.size() &&
         file_name.substr(0, kPluginFilePrefix.size()) == kPluginFilePrefix &&
         file_name.substr(file_name.size() - kPluginFileSuffix.size()) == kPluginFileSuffix;
}

std::string_view backend_name_of_file(std::string_view file_name) noexcept {
  if (!looks_like_plugin_file(file_name)) return {};
  return file_name.substr(kPluginFilePrefix.size(),
                          file_name.size() - kPluginFilePrefix.size() - kPluginFileSuffix.size());
}

}  // namespace omnirt
