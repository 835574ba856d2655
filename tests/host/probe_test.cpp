// omnirt-probe run against the fake zoo: the table, the JSON and the exit codes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.h"

namespace omnirt_test {
namespace {

using ::testing::HasSubstr;

struct ProbeRun {
  int exit_code = -1;
  std::string out;
};

// Runs omnirt-probe with `arguments` (stdout only) and the environment ignored,
// its tables fitted to `columns` characters.
ProbeRun probe(const std::string& arguments, int columns = 1000) {
  const std::string command = "COLUMNS=" + std::to_string(columns) + " " + OMNIRT_PROBE_PATH +
                              " --no-env --no-installed " + arguments + " 2>/dev/null";
  ProbeRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer;
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

const nlohmann::json* find_by(const nlohmann::json& array, const char* key, const std::string& value) {
  for (const auto& item : array) {
    if (item.at(key) == value) return &item;
  }
  return nullptr;
}

TEST(Probe, TablesShowBackendsDevicesCapabilitiesAndRejectedFiles) {
  const ProbeRun run = probe(std::string("--plugin-dir ") + ZOO_DIR);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.out, HasSubstr("5 of 6 backend(s) available"));
  EXPECT_THAT(run.out, HasSubstr("Backends (in selection order):"));
  EXPECT_THAT(run.out, HasSubstr("unavailable: fake: no fake device here"));
  EXPECT_THAT(run.out, HasSubstr("Fake Device 0"));
  EXPECT_THAT(run.out, HasSubstr("1.00 GiB / 1.00 GiB"));
  EXPECT_THAT(run.out, HasSubstr("host_alloc async_copy stream_ordered_alloc streams events"));
  EXPECT_THAT(run.out, HasSubstr("f32 f16 i32"));
  EXPECT_THAT(run.out, HasSubstr("omnirt.fake v1"));
  EXPECT_THAT(run.out, HasSubstr("Rejected files:"));
  EXPECT_THAT(run.out, HasSubstr("entry_symbol  INTERNAL"));
  EXPECT_THAT(run.out, HasSubstr("required slot is NULL: memset_sync"));
  EXPECT_THAT(run.out, ::testing::Not(HasSubstr("Search path")));
}

// Characters of `line`, a UTF-8 code point each.
size_t characters(const std::string& line) {
  size_t n = 0;
  for (const char c : line) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

size_t widest_line(const std::string& text) {
  size_t widest = 0, start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    widest = std::max(widest, characters(text.substr(start, end - start)));
  }
  return widest;
}

// The text of the column under `header` in the table that starts at `from`
// in `text`: the cell pieces of each line (up to `next_header`'s column, or
// the line's end), joined by `glue`.
std::string column_text(const std::string& text, size_t from, const std::string& header,
                        const std::string& next_header, const std::string& glue) {
  size_t line_start = text.find('\n', from) + 1;  // the header line
  const std::string header_line = text.substr(line_start, text.find('\n', line_start) - line_start);
  const size_t begin = header_line.find(header);
  const size_t end = next_header.empty() ? std::string::npos : header_line.find(next_header);
  std::string joined;
  for (line_start = text.find('\n', line_start) + 1; line_start < text.size();) {
    const size_t line_end = text.find('\n', line_start);
    const std::string line = text.substr(line_start, line_end - line_start);
    if (line.empty()) break;  // the table ends at a blank line
    if (line.size() > begin) {
      std::string piece = line.substr(begin, end == std::string::npos ? end : end - begin);
      piece.erase(piece.find_last_not_of(' ') + 1);
      if (!piece.empty()) joined += (joined.empty() ? "" : glue) + piece;
    }
    line_start = line_end + 1;
  }
  return joined;
}

TEST(Probe, TablesFitTheWidthAndVerboseShowsEveryTextInFull) {
  const std::string zoo = std::string("--plugin-dir ") + ZOO_DIR;
  const ProbeRun fitted = probe(zoo, 80);
  EXPECT_EQ(fitted.exit_code, 0);
  EXPECT_LE(widest_line(fitted.out), 80u) << fitted.out;
  // Nothing is cut off: paths and reasons wrap onto continuation lines.
  const size_t rejected = fitted.out.find("Rejected files:");
  ASSERT_NE(rejected, std::string::npos);
  const std::string paths = column_text(fitted.out, rejected, "PATH", "REACHED", "");
  const std::string reasons = column_text(fitted.out, rejected, "REASON", "", " ");
  EXPECT_THAT(paths, HasSubstr(ZOO_NULLSLOT));
  EXPECT_THAT(paths, HasSubstr(ZOO_NOENTRY));
  EXPECT_THAT(reasons, HasSubstr("required slot is NULL: memset_sync"));
  EXPECT_THAT(reasons, HasSubstr("an exception escaped the entry point (plugins must return a status, "
                                 "PLUGIN_RULES 8)"));

  const ProbeRun full = probe("--verbose " + zoo, 80);
  EXPECT_GT(widest_line(full.out), 80u);
  EXPECT_THAT(full.out, HasSubstr(std::string("  ") + ZOO_NULLSLOT + "  "));
  EXPECT_THAT(full.out, HasSubstr("not an OmniRT plugin: no symbol 'omnirt_backend_entry' ("));
}

TEST(Probe, SkippedFilesAreListedApartFromRejectedOnes) {
  // The same plugin twice, and one the configuration denies.
  TempDir dir;
  write_file(dir / "deny.yaml", "deny: [minimal]\n");
  const std::string args = std::string("--plugin-dir ") + ZOO_GOOD + " --plugin-dir " + ZOO_GOOD +
                           " --plugin-dir " + ZOO_MINIMAL + " --plugin-dir " + ZOO_NOENTRY +
                           " --config " + (dir / "deny.yaml");
  const ProbeRun run = probe(args);
  EXPECT_THAT(run.out, HasSubstr("1 of 1 backend(s) available, 1 file(s) rejected, 2 skipped"));
  const size_t rejected = run.out.find("Rejected files:");
  const size_t skipped = run.out.find("Skipped files:");
  ASSERT_NE(rejected, std::string::npos);
  ASSERT_NE(skipped, std::string::npos);
  const std::string rejected_table = run.out.substr(rejected, skipped - rejected);
  EXPECT_THAT(rejected_table, HasSubstr(ZOO_NOENTRY));
  EXPECT_THAT(rejected_table, ::testing::Not(HasSubstr(ZOO_MINIMAL)));
  EXPECT_THAT(run.out.substr(skipped), HasSubstr("'minimal' is in the deny list"));
  EXPECT_THAT(run.out.substr(skipped), HasSubstr("same file as"));

  const nlohmann::json doc = nlohmann::json::parse(probe("--json " + args).out);
  const nlohmann::json* minimal = find_by(doc.at("candidates"), "path", ZOO_MINIMAL);
  ASSERT_NE(minimal, nullptr);
  EXPECT_EQ(minimal->at("skipped"), true);
  EXPECT_EQ(find_by(doc.at("candidates"), "path", ZOO_NOENTRY)->at("skipped"), false);
}

TEST(Probe, VerboseShowsTheSearchPathAndLoadTimes) {
  const ProbeRun run = probe(std::string("--verbose --plugin-dir ") + ZOO_GOOD);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.out, HasSubstr("Search path (in order):"));
  // Notes the probe's own flags caused are in its words, not the API's.
  EXPECT_THAT(run.out, HasSubstr("OMNIRT_PLUGIN_PATH ignored (--no-env)"));
  EXPECT_THAT(run.out, HasSubstr("not searched (--no-installed)"));
  EXPECT_THAT(run.out, ::testing::Not(HasSubstr("OMNIRT_HOST_")));
  EXPECT_THAT(run.out, HasSubstr("Candidates (in search order):"));
  EXPECT_THAT(run.out, HasSubstr(" ms"));
}

// "major.minor" of the headers the host and the good plugin were built with.
const std::string kHeadersAbi =
    std::to_string(OMNIRT_ABI_VERSION_MAJOR) + "." + std::to_string(OMNIRT_ABI_VERSION_MINOR);

TEST(Probe, JsonHasTheSameData) {
  const ProbeRun run = probe(std::string("--json --plugin-dir ") + ZOO_DIR + " --plugin-dir " + ZOO_DUP_A);
  ASSERT_EQ(run.exit_code, 0);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc.at("schema_version"), 1);
  EXPECT_EQ(doc.at("abi_version"), kHeadersAbi);
  EXPECT_EQ(doc.at("available_backends"), 6);
  EXPECT_GT(doc.at("host_create_ns").get<uint64_t>(), 0u);
  ASSERT_EQ(doc.at("search_path").size(), 5u);
  EXPECT_EQ(doc.at("search_path")[0].at("path"), ZOO_DIR);
  EXPECT_EQ(doc.at("search_path")[0].at("source"), "api");
  EXPECT_EQ(doc.at("search_path")[2].at("source"), "environment");

  const nlohmann::json* good = find_by(doc.at("backends"), "name", "good");
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(good->at("available"), true);
  EXPECT_EQ(good->at("abi_version"), kHeadersAbi);
  EXPECT_EQ(good->at("capabilities").at("vendor"), "fake");
  EXPECT_EQ(good->at("capabilities").at("dl_device_type"), "cpu");
  EXPECT_EQ(good->at("capabilities").at("op_sets")[0].at("name"), "omnirt.fake");
  EXPECT_EQ(good->at("devices")[0].at("free_memory_bytes"), uint64_t{1} << 30);
  const nlohmann::json* minimal = find_by(doc.at("backends"), "name", "minimal");
  ASSERT_NE(minimal, nullptr);
  EXPECT_TRUE(minimal->at("devices")[0].at("free_memory_bytes").is_null());  // no mem_get_info
  EXPECT_EQ(minimal->at("devices")[0].at("total_memory_bytes"), uint64_t{1} << 30);

  const nlohmann::json* noentry = find_by(doc.at("candidates"), "path", ZOO_NOENTRY);
  ASSERT_NE(noentry, nullptr);
  EXPECT_EQ(noentry->at("loaded"), false);
  EXPECT_EQ(noentry->at("stage"), "dlopen");
  EXPECT_EQ(noentry->at("status"), "INCOMPATIBLE");
  EXPECT_THAT(noentry->at("reason").get<std::string>(), HasSubstr("no symbol 'omnirt_backend_entry'"));
}

TEST(Probe, ExitsWithOneWhenNothingIsAvailable) {
  const ProbeRun run = probe(std::string("--plugin-dir ") + ZOO_UNAVAIL);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.out, HasSubstr("0 of 1 backend(s) available"));
}

TEST(Probe, ExitsWithTwoOnUsageOrConfigurationErrors) {
  EXPECT_EQ(probe("--no-such-option").exit_code, 2);
  TempDir dir;
  write_file(dir / "bad.yaml", "plugin_dir: [x]\n");
  EXPECT_EQ(probe("--config " + (dir / "bad.yaml")).exit_code, 2);
  const ProbeRun help = probe("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("2  usage or configuration error"));
}

std::string parent_of(const char* path) { return std::filesystem::path(path).parent_path().string(); }

size_t files_in(const std::string& dir) {
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) count += entry.is_regular_file() ? 1 : 0;
  return count;
}

// A configuration for probes that vet: a short time limit for the plugins that
// hang on purpose, and a cache of the test's own.
std::string vetting_config(const TempDir& dir) {
  write_file(dir / "omnirt.yaml", "vetting_time_limit_ms: " + std::to_string(kTestVettingLimitMs) +
                                      "\nvetting_cache_dir: " + (dir / "cache") + "\n");
  return dir / "omnirt.yaml";
}

TEST(Probe, SurvivesEveryClassOfMisbehavingPluginAndItsJsonParses) {
  TempDir dir;
  const std::string faults = parent_of(ZOO_FAULT_CRASH_ENTRY);
  const std::string text = parent_of(ZOO_TEXT_NAME_INVALID);
  const std::string slots = parent_of(ZOO_SLOTS_UNADVERTISED);
  const std::string places = " --plugin-dir " + faults + " --plugin-dir " + text + " --plugin-dir " + slots +
                             " --plugin-dir " + ZOO_GOOD;
  const ProbeRun run = probe("--json --config " + vetting_config(dir) + places);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc.at("candidates").size(), files_in(faults) + files_in(text) + files_in(slots) + 1);
  for (const auto& c : doc.at("candidates")) {
    const std::string path = c.at("path");
    if (path.rfind(faults, 0) == 0) {
      EXPECT_EQ(c.at("vetting"), "rejected") << path;
      EXPECT_EQ(c.at("loaded"), false) << path;
    } else {
      EXPECT_EQ(c.at("vetting"), "passed") << path << ": " << c.at("reason");
    }
  }
  const nlohmann::json* crash = find_by(doc.at("candidates"), "path", ZOO_FAULT_CRASH_AVAILABLE);
  ASSERT_NE(crash, nullptr);
  EXPECT_EQ(crash->at("stage"), "validate");
  EXPECT_EQ(crash->at("status"), "INTERNAL");
  EXPECT_THAT(crash->at("reason").get<std::string>(), HasSubstr("SIGSEGV (signal 11) during available"));
  const nlohmann::json* hang = find_by(doc.at("candidates"), "path", ZOO_FAULT_HANG_ENTRY);
  ASSERT_NE(hang, nullptr);
  EXPECT_EQ(hang->at("status"), "TIMEOUT");
  const nlohmann::json* vendor = find_by(doc.at("backends"), "name", "vendor_invalid");
  ASSERT_NE(vendor, nullptr);
  EXPECT_EQ(vendor->at("capabilities").at("vendor"), R"(fake\xC3(bad\xFF\xC0\xAF\xED\xA0\x80\x1B[31mred\x0A)");
  const nlohmann::json* garbage = find_by(doc.at("candidates"), "path", ZOO_SLOTS_GARBAGE_LIBC_BIT);
  ASSERT_NE(garbage, nullptr);
  EXPECT_THAT(garbage->at("reason").get<std::string>(), HasSubstr("vtable slot 'mem_get_info' points into '"));

  // The tables too, now from the verdict cache.
  const ProbeRun tables = probe("--verbose --config " + (dir / "omnirt.yaml") + places);
  EXPECT_EQ(tables.exit_code, 0);
  EXPECT_THAT(tables.out, HasSubstr("rejected (cached)"));
  EXPECT_THAT(tables.out, HasSubstr("crashed the vetting process with SIGSEGV"));
}

TEST(Probe, NoVetLoadsInThisProcess) {
  TempDir dir;
  const ProbeRun run = probe("--json --no-vet --config " + vetting_config(dir) + " --plugin-dir " +
                             parent_of(ZOO_TEXT_NAME_INVALID) + " --plugin-dir " + ZOO_GOOD);
  ASSERT_EQ(run.exit_code, 0);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  for (const auto& c : doc.at("candidates")) EXPECT_EQ(c.at("vetting"), "not_vetted") << c.at("path");
  EXPECT_FALSE(std::filesystem::exists(dir / "cache"));
}

TEST(Probe, OddFileNamesComeOutAsValidJson) {
  TempDir dir;
  const std::string odd = dir / "odd \xFF\xFE\nname";
  std::filesystem::create_directory(odd);
  copy_file(ZOO_GOOD, odd + "/libomnirt_backend_good.so");
  copy_file(ZOO_GOOD, dir / "libomnirt_backend_\xC3(x.so");
  const ProbeRun run = probe("--json --plugin-dir '" + odd + "' --plugin-dir " + dir.path());
  ASSERT_EQ(run.exit_code, 0);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc.at("search_path")[0].at("path"), dir.path() + R"(/odd \xFF\xFE\x0Aname)");
  EXPECT_NE(find_by(doc.at("candidates"), "path", dir.path() + R"(/odd \xFF\xFE\x0Aname/libomnirt_backend_good.so)"),
            nullptr);
  const nlohmann::json* refused = find_by(doc.at("candidates"), "path", dir.path() + R"(/libomnirt_backend_\xC3(x.so)");
  ASSERT_NE(refused, nullptr);
  EXPECT_EQ(refused->at("status"), "INVALID_ARGUMENT");
}

}  // namespace
}  // namespace omnirt_test
