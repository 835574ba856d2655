// Backend options from the host's configuration (backends.<name>.options).
// A misspelt key is an error at create, not an option silently ignored.
#ifndef OMNIRT_PLUGIN_COMMON_OPTIONS_H_
#define OMNIRT_PLUGIN_COMMON_OPTIONS_H_

#include <cstring>
#include <initializer_list>
#include <string>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::plugin_common {

// Throws INVALID_ARGUMENT naming the first key not in `known`.
inline void check_option_keys(const omnirt_backend_create_args& args, const char* backend,
                              std::initializer_list<const char*> known) {
  for (size_t i = 0; i < args.num_options; ++i) {
    bool found = false;
    for (const char* key : known) found = found || std::strcmp(args.option_keys[i], key) == 0;
    if (found) continue;
    std::string list;
    for (const char* key : known) list += (list.empty() ? "" : ", ") + std::string(key);
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string(backend) + ": unknown option '" +
                                                     args.option_keys[i] + "' (known: " + list +
                                                     ")");
  }
}

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_OPTIONS_H_
