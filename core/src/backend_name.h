// The naming rule for backends and their files (PLUGIN_RULES 1).
#ifndef OMNIRT_CORE_BACKEND_NAME_H_
#define OMNIRT_CORE_BACKEND_NAME_H_

#include <cstddef>
#include <string_view>

namespace omnirt {

/// Longest valid backend name.
inline constexpr size_t kMaxBackendNameLength = 32;
/// Plugin files are kPluginFilePrefix + <name> + kPluginFileSuffix.
inline constexpr std::string_view kPluginFilePrefix = "libomnirt_backend_";
inline constexpr std::string_view kPluginFileSuffix = ".so";

/// True for names matching [a-z0-9_]{1,32}.
bool is_valid_backend_name(std::string_view name) noexcept;

/// True when `file_name` has the plugin prefix and suffix (whatever lies between).
bool looks_like_plugin_file(std::string_view file_name) noexcept;

/// The <name> part of a file name that looks like a plugin file ("" if it does not).
std::string_view backend_name_of_file(std::string_view file_name) noexcept;

}  // namespace omnirt

#endif  // OMNIRT_CORE_BACKEND_NAME_H_
