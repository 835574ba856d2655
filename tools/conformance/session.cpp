#include "session.hpp"

#include <cstring>

namespace omnirt::conformance {

Session::Session(const std::string& plugin_path, const std::string& config_path) {
  const char* paths[] = {plugin_path.c_str()};
  omnirt_host_options options;
  std::memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  options.config_path = config_path.empty() ? nullptr : config_path.c_str();
  options.plugin_paths = plugin_path.empty() ? nullptr : paths;
  options.num_plugin_paths = plugin_path.empty() ? 0 : 1;
  options.flags = OMNIRT_HOST_SKIP_INSTALLED_DIR | OMNIRT_HOST_IGNORE_ENVIRONMENT;
  if (omnirt_host_create(&options, &host_) != OMNIRT_STATUS_OK) {
    error_ = omnirt_last_error()->message;
    host_ = nullptr;
    return;
  }
  // The only candidate is the file given; a configuration's plugin_dirs could
  // add others, so it is picked by path.
  for (size_t i = 0; i < omnirt_host_candidate_count(host_); ++i) {
    omnirt_candidate c;
    std::memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    if (omnirt_host_get_candidate(host_, i, &c) == OMNIRT_STATUS_OK &&
        c.source == OMNIRT_SOURCE_API) {
      candidate_ = c;
      has_candidate_ = true;
      break;
    }
  }
  if (!has_candidate_ || !candidate_.loaded) return;
  for (size_t i = 0; i < omnirt_host_backend_count(host_); ++i) {
    omnirt_backend* b = nullptr;
    omnirt_backend_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (omnirt_host_backend_at(host_, i, &b) == OMNIRT_STATUS_OK &&
        omnirt_backend_get_info(b, &info) == OMNIRT_STATUS_OK &&
        std::strcmp(info.name, candidate_.backend_name) == 0) {
      backend_ = b;
      break;
    }
  }
}

Session::~Session() { omnirt_host_destroy(host_); }

}  // namespace omnirt::conformance
