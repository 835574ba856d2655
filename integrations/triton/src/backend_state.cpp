#include "backend_state.h"

#include "error.h"

namespace omnirt::triton {

BackendState::BackendState(const BackendSettings& settings) {
  std::vector<const char*> paths;
  for (const std::string& dir : settings.plugin_dirs) paths.push_back(dir.c_str());
  omnirt_host_options options{};
  options.struct_size = sizeof options;
  options.config_path = settings.config_path.empty() ? nullptr : settings.config_path.c_str();
  options.plugin_paths = paths.data();
  options.num_plugin_paths = paths.size();
  options.flags = (settings.ignore_environment ? OMNIRT_HOST_IGNORE_ENVIRONMENT : 0u) |
                  (settings.skip_installed_plugins ? OMNIRT_HOST_SKIP_INSTALLED_DIR : 0u);
  check_omnirt(host_.create(&options), "creating the OmniRT host");
}

std::vector<std::string> BackendState::describe() const {
  std::vector<std::string> lines{"OmniRT " + std::string(omnirt_library_version()) + " host with " +
                                 std::to_string(host_.backend_count()) + " backend(s)"};
  for (size_t i = 0; i < host_.backend_count(); ++i) {
    omnirt::Backend backend;
    omnirt_backend_info info{};
    if (host_.backend_at(i, &backend) != OMNIRT_STATUS_OK || backend.info(&info) != OMNIRT_STATUS_OK) {
      continue;
    }
    lines.push_back(
        std::string("backend ") + info.name + " " + info.plugin_version + " (" + info.path +
        "): " + (info.available != 0 ? "available" : std::string("unavailable: ") + info.unavailable_reason));
  }
  for (size_t i = 0; i < host_.candidate_count(); ++i) {
    omnirt_candidate candidate{};
    // ALREADY_EXISTS: the same file reached twice (e.g. plugin-dirs naming the
    // installed directory), loaded once; nothing an operator must act on.
    if (host_.candidate(i, &candidate) != OMNIRT_STATUS_OK || candidate.loaded != 0 ||
        candidate.status == OMNIRT_STATUS_ALREADY_EXISTS) {
      continue;
    }
    lines.push_back(std::string("rejected plugin ") + candidate.path + " at stage " +
                    omnirt_load_stage_name(candidate.stage) + ": " + candidate.reason);
  }
  return lines;
}

}  // namespace omnirt::triton
