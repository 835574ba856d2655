// What the verdict cache keys a plugin file by: inode, size, times and the
// linker's build-id, read from the ELF notes.
#include "vetting/file_identity.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace omnirt::vetting {
namespace {

// This test program itself: an ELF file linked with a build-id (Debian's
// toolchain adds one to every link).
std::string self() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

TEST(FileIdentity, ReadsTheBuildIdOfAnElfFile) {
  FileIdentity id;
  ASSERT_TRUE(identify_file(self(), &id));
  EXPECT_EQ(id.build_id.size(), 40u);  // sha1
  EXPECT_EQ(id.build_id.find_first_not_of("0123456789abcdef"), std::string::npos);
  struct stat status {};
  ASSERT_EQ(stat(self().c_str(), &status), 0);
  EXPECT_EQ(id.inode, status.st_ino);
  EXPECT_EQ(id.size, static_cast<uint64_t>(status.st_size));
}

TEST(FileIdentity, AFileThatIsNotElfHasNoBuildIdAndAMissingOneNoIdentity) {
  std::string dir = (std::filesystem::temp_directory_path() / "omnirt-identity-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  const std::string path = dir + "/notelf";
  std::ofstream(path) << std::string(4096, '\x7f');
  FileIdentity id;
  EXPECT_TRUE(identify_file(path, &id));
  EXPECT_EQ(id.build_id, "");
  FileIdentity again = id;
  EXPECT_TRUE(id == again);
  std::ofstream(path, std::ios::app) << "more";
  ASSERT_TRUE(identify_file(path, &again));
  EXPECT_FALSE(id == again);
  std::filesystem::remove_all(dir);
  EXPECT_FALSE(identify_file(path, &id));
}

}  // namespace
}  // namespace omnirt::vetting
