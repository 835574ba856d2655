// Helpers shared by the host tests: hosts over chosen plugin paths, candidate
// lookup, temporary directories and scoped environment variables.
#ifndef OMNIRT_TESTS_HOST_TEST_SUPPORT_H_
#define OMNIRT_TESTS_HOST_TEST_SUPPORT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "omnirt/host.h"
#include "zoo_paths.h"

namespace omnirt_test {

struct HostDeleter {
  void operator()(omnirt_host* host) const noexcept { omnirt_host_destroy(host); }
};
using HostPtr = std::unique_ptr<omnirt_host, HostDeleter>;

/// Flags for a host that sees only what the test gives it.
inline constexpr uint32_t kIsolated = OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR;

/// Creates a host over `paths`; *status gets the result (the host is null on failure).
HostPtr make_host(const std::vector<std::string>& paths, omnirt_status* status, uint32_t flags = kIsolated,
                  const char* config_path = nullptr);

/// Creates a host over `paths` and fails the test if creation fails.
HostPtr make_host(const std::vector<std::string>& paths, uint32_t flags = kIsolated,
                  const char* config_path = nullptr);

/// The vetting fields of omnirt_host_options (ABI 1.1).
struct Vetting {
  omnirt_vetting mode = OMNIRT_VETTING_DEFAULT;
  std::string cache_dir;       ///< "" for the default
  uint32_t time_limit_ms = 0;  ///< 0 for the default
};

/// Long enough for a good plugin's vetting child under the sanitizers on a
/// loaded machine, short enough for the cases that hang on purpose.
inline constexpr uint32_t kTestVettingLimitMs = 1500;

/// Creates a host over `paths` with `vetting`; fails the test if creation fails.
HostPtr make_vetting_host(const std::vector<std::string>& paths, const Vetting& vetting,
                          uint32_t flags = kIsolated);

/// Every candidate record of `host`.
std::vector<omnirt_candidate> candidates(const omnirt_host* host);
/// The candidate found as `path`, if any.
std::optional<omnirt_candidate> candidate_at(const omnirt_host* host, const std::string& path);
/// Every search path entry of `host`.
std::vector<omnirt_search_dir> search_dirs(const omnirt_host* host);
/// omnirt_backend_get_info of `backend`.
omnirt_backend_info info_of(const omnirt_backend* backend);
/// The backend named `name`, or nullptr.
omnirt_backend* backend_named(omnirt_host* host, const char* name);
/// The message of omnirt_last_error() on this thread.
std::string last_message();

/// A fresh directory (mode 0700) removed with its content at scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  /// path() + "/" + name.
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// Writes `content` to `path`.
void write_file(const std::string& path, const std::string& content);
/// Copies the file `from` to `to`.
void copy_file(const std::string& from, const std::string& to);

/// Sets (or, with nullopt, unsets) an environment variable; restores it at scope exit.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

}  // namespace omnirt_test

#endif  // OMNIRT_TESTS_HOST_TEST_SUPPORT_H_
