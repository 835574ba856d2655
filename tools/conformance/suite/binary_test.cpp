// The plugin file itself: what it exports, imports and links (rules 2 and 4),
// and what loading it does to the process (rules 4 and 11).
#include <string>
#include <vector>

#include "elf_reader.hpp"
#include "kit.hpp"
#include "probe.hpp"
#include "text.hpp"

namespace omnirt::conformance {
namespace {

class Binary : public KitTest {
 protected:
  Binary() : KitTest(Needs::kFile) {}

  static const DynamicInfo& elf() {
    static const DynamicInfo info = read_dynamic_info(kit().plugin_path);
    return info;
  }
  // The plugin loaded in a fresh process.
  static const ProbeResult& footprint() { return shared_probe("footprint"); }
};

// Sonames of vendor SDKs, drivers and engines a plugin must dlopen lazily
// instead of linking (DESIGN decision 4). A prefix match: "libcudart" covers
// libcudart.so.12.
const char* const kHeavyLibraries[] = {
    "libtorch",   "libc10",    "libcaffe2", "libcuda.",    "libcudart", "libcublas",
    "libcudnn",   "libnvrtc",  "libnccl",   "libascendcl", "libacl_",   "libge_runner",
    "libcnrt",    "libcndrv",  "libcnnl",   "libamdhip64", "libze_loader", "libOpenCL",
};

KIT_TEST(Binary, ExportsOnlyTheEntrySymbol, 2) {
  ASSERT_EQ(elf().error, "");
  std::vector<std::string> extra;
  bool entry = false;
  for (const std::string& name : elf().exported) {
    if (name == "omnirt_backend_entry") entry = true;
    else extra.push_back(name);
  }
  EXPECT_TRUE(entry) << "omnirt_backend_entry is not exported";
  EXPECT_TRUE(extra.empty()) << "exports " << extra.size() << " symbol(s) besides the entry: "
                             << join(extra, ", ")
                             << " (build with omnirt_add_backend: hidden visibility and a "
                                "version script)";
}

KIT_TEST(Binary, ImportsNothingFromTheHost, 2) {
  ASSERT_EQ(elf().error, "");
  std::vector<std::string> from_host;
  for (const std::string& name : elf().imported) {
    if (name.rfind("omnirt_", 0) == 0) from_host.push_back(name);
  }
  for (const std::string& lib : elf().needed) {
    if (lib.rfind("libomnirt.so", 0) == 0) from_host.push_back(lib);
  }
  EXPECT_TRUE(from_host.empty()) << "relies on the host's symbols: " << join(from_host, ", ")
                                 << " (the host lends its services through the entry's args)";
}

KIT_TEST(Binary, LinksNoVendorSdkOrEngine, 4) {
  ASSERT_EQ(elf().error, "");
  std::vector<std::string> heavy;
  for (const std::string& lib : elf().needed) {
    for (const char* prefix : kHeavyLibraries) {
      if (lib.rfind(prefix, 0) == 0) heavy.push_back(lib);
    }
  }
  EXPECT_TRUE(heavy.empty()) << "links " << join(heavy, ", ")
                             << " at load time; dlopen it on first real use instead";
}

KIT_TEST(Binary, LoadsNoLibraryAndStartsNoThreadWhileLoading, 4) {
  const ProbeResult& p = footprint();
  ASSERT_EQ(p.problem(), "") << "loading the plugin in a fresh process: " << p.problem();
  EXPECT_EQ(p["libraries_loaded_by_load_slots"], "")
      << "entry, create, is_available or get_capabilities loaded "
      << p["libraries_loaded_by_load_slots"];
  EXPECT_EQ(p["threads_started_by_dlopen"], "0")
      << "static initialisers started " << p["threads_started_by_dlopen"] << " thread(s)";
  EXPECT_EQ(p["threads_started_by_load_slots"], "0")
      << "entry, create, is_available or get_capabilities started "
      << p["threads_started_by_load_slots"] << " thread(s)";
}

KIT_TEST(Binary, LeavesProcessWideStateAlone, 11) {
  const ProbeResult& p = footprint();
  ASSERT_EQ(p.problem(), "") << "loading the plugin in a fresh process: " << p.problem();
  EXPECT_EQ(p["state_changes"], "")
      << "loading and using the plugin changed process-wide state others rely on: "
      << p["state_changes"];
}

}  // namespace
}  // namespace omnirt::conformance
