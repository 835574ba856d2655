// omnirt-conformance: runs the conformance suite on one backend plugin, loaded
// through the host exactly as production loads it.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "crash_reporter.hpp"
#include "kit.hpp"
#include "probe.hpp"
#include "progress_printer.hpp"
#include "report.hpp"

namespace {

constexpr char kUsage[] =
    "usage: omnirt-conformance PATH/TO/libomnirt_backend_NAME.so [--config FILE]\n"
    "                          [--json[=FILE]] [--gtest_filter=...] [other gtest flags]\n"
    "\n"
    "Loads the plugin through the OmniRT host (only that file: no installed plugin\n"
    "directory, no environment) and checks it against the backend contract and the\n"
    "numbered rules of PLUGIN_RULES.md. Tests the backend cannot run (capability\n"
    "bit clear, unavailable here) are skipped with the reason.\n"
    "\n"
    "  --config FILE   host configuration, e.g. backends.NAME.options for the plugin\n"
    "  --json          write the JSON report to stdout (summary goes to stderr)\n"
    "  --json=FILE     write the JSON report to FILE\n"
    "  --gtest_*       GoogleTest's flags pass through: --gtest_filter='Memory.*',\n"
    "                  --gtest_list_tests, --gtest_repeat=N, ...\n"
    "\n"
    "Exit status: 0 every test passed or was skipped; 1 a test failed;\n"
    "2 bad usage, or no host could be made (bad configuration file).\n";

struct Args {
  std::string plugin;
  std::string config;
  bool json = false;
  std::string json_file;  // "" with json: stdout
  std::string probe;      // set in a probe child
};

// False on bad usage, with the reason printed.
bool parse(int argc, char** argv, Args* args) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) {
      args->config = argv[++i];
    } else if (a.rfind("--config=", 0) == 0) {
      args->config = a.substr(std::strlen("--config="));
    } else if (a == "--json") {
      args->json = true;
    } else if (a.rfind("--json=", 0) == 0) {
      args->json = true;
      args->json_file = a.substr(std::strlen("--json="));
    } else if (a.rfind(omnirt::conformance::kProbeFlag, 0) == 0) {
      args->probe = a.substr(std::strlen(omnirt::conformance::kProbeFlag));
    } else if (a.empty() || a[0] == '-' || !args->plugin.empty()) {
      std::fprintf(stderr, "omnirt-conformance: unexpected argument '%s'\n", a.c_str());
      return false;
    } else {
      args->plugin = a;
    }
  }
  if (args->plugin.empty()) {
    std::fprintf(stderr, "omnirt-conformance: no plugin given\n");
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  namespace kit = omnirt::conformance;
  // Before GoogleTest, which would answer --help with its own flags only.
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  ::testing::InitGoogleTest(&argc, argv);  // takes the gtest flags out of argv
  Args args;
  if (!parse(argc, argv, &args)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(args.plugin, ec)) {
    std::fprintf(stderr, "omnirt-conformance: %s is not a file\n", args.plugin.c_str());
    return 2;
  }
  const std::string plugin = std::filesystem::absolute(args.plugin).string();
  if (!args.probe.empty()) return kit::probe_child_main(args.probe, plugin, args.config);

  const kit::Kit& k = kit::init_kit(plugin, args.config);
  if (!k.session->error().empty()) {
    std::fprintf(stderr, "omnirt-conformance: cannot create a host: %s\n",
                 k.session->error().c_str());
    return 2;
  }
  ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
  auto* recorder = new kit::Recorder;  // listeners are owned by GoogleTest
  listeners.Append(recorder);
  listeners.Append(new kit::CrashReporter);
  const bool json_to_stdout = args.json && args.json_file.empty();
  delete listeners.Release(listeners.default_result_printer());
  if (!json_to_stdout) listeners.Append(new kit::ProgressPrinter(stdout));

  const int gtest_status = RUN_ALL_TESTS();
  kit::print_summary(json_to_stdout ? stderr : stdout, *recorder);
  if (args.json) {
    const std::string report = kit::json_report(*recorder);
    if (json_to_stdout) {
      std::fputs(report.c_str(), stdout);
    } else if (!(std::ofstream(args.json_file) << report)) {
      std::fprintf(stderr, "omnirt-conformance: cannot write %s\n", args.json_file.c_str());
      return 2;
    }
  }
  kit::shutdown_kit();
  return gtest_status != 0 || recorder->count(kit::Outcome::kFailed) > 0 ? 1 : 0;
}
