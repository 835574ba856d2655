// omnirt-probe: which backends this machine has, what they can do, and why
// each rejected plugin file was rejected.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "omnirt/host.h"
#include "probe_report.h"
#include "terminal.h"

namespace {

// Documented in --help and README.md.
constexpr int kExitAvailable = 0;
constexpr int kExitNoneAvailable = 1;
constexpr int kExitUsage = 2;

struct Options {
  std::vector<std::string> plugin_dirs;
  std::string config;
  bool json = false;
  bool verbose = false;
  bool no_env = false;
  bool no_installed = false;
  bool no_vet = false;
};

struct HostDeleter {
  void operator()(omnirt_host* host) const { omnirt_host_destroy(host); }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"omnirt-probe: lists the OmniRT backends found on this machine, their devices and\n"
               "capabilities, and every plugin file that was rejected, with the reason.",
               "omnirt-probe"};
  Options options;
  app.add_option("--plugin-dir", options.plugin_dirs,
                 "Search this plugin directory or file first (repeatable; searched before "
                 "OMNIRT_PLUGIN_PATH, the configuration and the installed directory)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  app.add_option("--config", options.config, "YAML configuration file (default: $OMNIRT_CONFIG)")
      ->type_name("FILE");
  app.add_flag("--json", options.json, "Print JSON (\"schema_version\": 1) instead of tables");
  app.add_flag("-v,--verbose", options.verbose,
               "Also show the search path (where each entry came from, why it was or was not "
               "searched) and every candidate's load time");
  app.add_flag("--no-env", options.no_env, "Ignore OMNIRT_PLUGIN_PATH, OMNIRT_CONFIG and OMNIRT_LOG_LEVEL");
  app.add_flag("--no-installed", options.no_installed, "Do not search the installed plugin directory");
  app.add_flag("--no-vet", options.no_vet,
               "Load plugins without vetting them in a child process first (vetting is on unless the "
               "configuration or OMNIRT_VETTING turn it off)");
  app.set_version_flag("--version", std::string("omnirt-probe ") + omnirt_library_version());
  app.footer(
      "Exit status:\n"
      "  0  at least one backend is available\n"
      "  1  no backend is available (see the rejected files and unavailable reasons)\n"
      "  2  usage or configuration error");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitAvailable : kExitUsage;
  }

  std::vector<const char*> paths;
  for (const std::string& dir : options.plugin_dirs) paths.push_back(dir.c_str());
  omnirt_host_options host_options{};
  host_options.struct_size = sizeof host_options;
  host_options.config_path = options.config.empty() ? nullptr : options.config.c_str();
  host_options.plugin_paths = paths.data();
  host_options.num_plugin_paths = paths.size();
  host_options.flags = (options.no_env ? OMNIRT_HOST_IGNORE_ENVIRONMENT : 0u) |
                       (options.no_installed ? OMNIRT_HOST_SKIP_INSTALLED_DIR : 0u);
  host_options.vetting = options.no_vet ? OMNIRT_VETTING_OFF : OMNIRT_VETTING_DEFAULT;

  const auto start = std::chrono::steady_clock::now();
  omnirt_host* raw_host = nullptr;
  const omnirt_status status = omnirt_host_create(&host_options, &raw_host);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  const std::unique_ptr<omnirt_host, HostDeleter> host(raw_host);
  if (status != OMNIRT_STATUS_OK) {
    std::cerr << "omnirt-probe: " << omnirt_status_name(status) << ": " << omnirt_last_error()->message << "\n";
    return kExitUsage;
  }

  const auto create_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
  omnirt_probe::ProbeReport report = omnirt_probe::collect(host.get(), create_ns);
  omnirt_probe::name_own_flags(report, options.no_env, options.no_installed);
  if (options.json) {
    // The host hands out UTF-8 only; replacing what is not is defence in depth.
    std::cout << omnirt_probe::to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    omnirt_probe::print_text(report, options.verbose, omnirt_probe::output_columns(), std::cout);
  }
  return report.available_count() > 0 ? kExitAvailable : kExitNoneAvailable;
}
