// A fresh directory (mode 0700) for a test's file store, removed with its
// content at scope exit.
#ifndef OMNIRT_TESTS_COLLECTIVES_SUPPORT_SCRATCH_DIR_H_
#define OMNIRT_TESTS_COLLECTIVES_SUPPORT_SCRATCH_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace omnirt_test {

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "omnirt-collectives-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace omnirt_test

#endif  // OMNIRT_TESTS_COLLECTIVES_SUPPORT_SCRATCH_DIR_H_
