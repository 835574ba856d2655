// The per-backend options of a host configuration file
// (backends.<name>.options), for probes that create the backend themselves.
#ifndef OMNIRT_CONFORMANCE_BACKEND_OPTIONS_HPP_
#define OMNIRT_CONFORMANCE_BACKEND_OPTIONS_HPP_

#include <map>
#include <string>

namespace omnirt::conformance {

// Empty when there is no file or no options for `backend`. The host has
// already validated the file; a file it accepted parses here too.
std::map<std::string, std::string> backend_options(const std::string& config_path,
                                                   const std::string& backend);

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_BACKEND_OPTIONS_HPP_
