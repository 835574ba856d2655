#include "file_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "error.h"

namespace omnirt {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxFileName = 255;

// Readers look again after 0.1 ms, doubling up to 10 ms: a rendezvous of
// processes started together completes in well under a millisecond of
// polling, and a long wait costs at most 100 looks a second.
constexpr auto kFirstBackoff = std::chrono::microseconds(100);
constexpr auto kLongestBackoff = std::chrono::milliseconds(10);

// Calls `ready` until it returns true or `timeout_ms` has passed; true when it did.
template <class Ready>
bool poll(uint32_t timeout_ms, Ready&& ready) {
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  auto backoff = std::chrono::duration_cast<Clock::duration>(kFirstBackoff);
  for (;;) {
    if (ready()) return true;
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(std::min(backoff, deadline - now));
    backoff = std::min(backoff * 2, std::chrono::duration_cast<Clock::duration>(kLongestBackoff));
  }
}

bool is_plain(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

// The file name of a key: plain bytes kept, others (and a leading '.', which
// would hide the file and could meet a temporary file's name) as %XX.
std::string escape(const char* key) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string name;
  for (const char* p = key; *p != '\0'; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (is_plain(c) && !(p == key && c == '.')) {
      name += static_cast<char>(c);
    } else {
      name += '%';
      name += kHex[c >> 4];
      name += kHex[c & 15];
    }
  }
  return name;
}

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

// Creates `directory` and its missing parents with mode 0700.
bool make_directories(const std::string& directory) {
  for (size_t slash = directory.find('/', 1);; slash = directory.find('/', slash + 1)) {
    const std::string prefix = directory.substr(0, slash);
    if (mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) return true;
  }
}

// Writes all of `size` bytes to `fd`.
bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// A name no other writer uses at the same time: process id and a counter.
std::string temporary_name() {
  static std::atomic<uint64_t> counter{0};
  return ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter.fetch_add(1));
}

}  // namespace

FileStore::FileStore(std::string directory) : directory_(std::move(directory)) {
  kv_.struct_size = sizeof kv_;
  kv_.user_data = this;
  kv_.put = [](void* self, const char* key, const void* value, size_t size) {
    return static_cast<FileStore*>(self)->put(key, value, size);
  };
  kv_.get = [](void* self, const char* key, void* value, size_t capacity, size_t* size,
               uint32_t timeout_ms) {
    return static_cast<FileStore*>(self)->get(key, value, capacity, size, timeout_ms);
  };
  kv_.wait = [](void* self, const char* const* keys, size_t num_keys, uint32_t timeout_ms) {
    return static_cast<FileStore*>(self)->wait(keys, num_keys, timeout_ms);
  };
}

omnirt_status FileStore::open(const char* directory, std::unique_ptr<FileStore>* out) noexcept {
  constexpr const char* kCall = "omnirt_file_store_create";
  return guard_api(kCall, [&]() -> omnirt_status {
    if (directory[0] == '\0') {
      return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: directory is \"\"", kCall);
    }
    std::string path = directory;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (!make_directories(path)) {
      return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: cannot create '{}': {}", kCall, path,
                  std::strerror(errno));
    }
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: '{}' is not a directory", kCall, path);
    }
    if ((st.st_mode & S_IWOTH) != 0) {
      return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {},
                  "{}: '{}' is world-writable (mode {:o}): anyone could write a rank's keys; use "
                  "a directory of your own (it is created with mode 0700)",
                  kCall, path, st.st_mode & 07777);
    }
    if (access(path.c_str(), W_OK | X_OK) != 0) {
      return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: '{}' is not writable: {}", kCall, path,
                  std::strerror(errno));
    }
    out->reset(new FileStore(std::move(path)));
    return OMNIRT_STATUS_OK;
  });
}

std::string FileStore::path_of(const char* key, const char* call) const noexcept {
  try {
    if (key == nullptr || key[0] == '\0') {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: the key is {}", call,
           key == nullptr ? "NULL" : "\"\"");
      return {};
    }
    std::string name = escape(key);
    if (name.size() > kMaxFileName) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, {},
           "{}: key '{}' makes a file name of {} bytes; at most {} fit", call, key, name.size(),
           kMaxFileName);
      return {};
    }
    return directory_ + "/" + name;
  } catch (...) {
    fail(OMNIRT_STATUS_OUT_OF_MEMORY, {}, "{}: out of host memory", call);
    return {};
  }
}

omnirt_status FileStore::put(const char* key, const void* value, size_t size) noexcept {
  constexpr const char* kCall = "file store put";
  const std::string path = path_of(key, kCall);
  if (path.empty()) return omnirt_last_error()->status;
  if (size > 0 && value == nullptr) return null_argument(kCall, "value");
  return guard_api(kCall, [&]() -> omnirt_status {
    const std::string temporary = directory_ + "/" + temporary_name();
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      return fail(OMNIRT_STATUS_INTERNAL, {}, "{}: cannot create '{}': {}", kCall, temporary,
                  std::strerror(errno));
    }
    const bool written = write_all(fd, value, size);
    const int write_errno = errno;
    if (::close(fd) != 0 || !written) {
      unlink(temporary.c_str());
      return fail(OMNIRT_STATUS_INTERNAL, {}, "{}: cannot write '{}': {}", kCall, temporary,
                  std::strerror(written ? errno : write_errno));
    }
    // rename() replaces the key's file in one step: a reader sees the old
    // value or the new one, never a part.
    if (rename(temporary.c_str(), path.c_str()) != 0) {
      const int rename_errno = errno;
      unlink(temporary.c_str());
      return fail(OMNIRT_STATUS_INTERNAL, {}, "{}: cannot rename '{}' to '{}': {}", kCall,
                  temporary, path, std::strerror(rename_errno));
    }
    return OMNIRT_STATUS_OK;
  });
}

omnirt_status FileStore::get(const char* key, void* value, size_t capacity, size_t* size,
                             uint32_t timeout_ms) noexcept {
  constexpr const char* kCall = "file store get";
  const std::string path = path_of(key, kCall);
  if (path.empty()) return omnirt_last_error()->status;
  if (size == nullptr) return null_argument(kCall, "size");
  if (capacity > 0 && value == nullptr) return null_argument(kCall, "value");
  return guard_api(kCall, [&]() -> omnirt_status {
    int fd = -1;
    const bool found = poll(timeout_ms, [&] {
      fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      return fd >= 0 || errno != ENOENT;
    });
    if (!found) {
      return fail(OMNIRT_STATUS_TIMEOUT, {}, "{}: key '{}' did not appear within {} ms", kCall, key,
                  timeout_ms);
    }
    if (fd < 0) {
      return fail(OMNIRT_STATUS_INTERNAL, {}, "{}: cannot open '{}': {}", kCall, path,
                  std::strerror(errno));
    }
    // The descriptor holds the file renamed in whole: a later put does not change it.
    std::vector<char> bytes;
    char chunk[4096];
    for (;;) {
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int read_errno = errno;
        ::close(fd);
        return fail(OMNIRT_STATUS_INTERNAL, {}, "{}: cannot read '{}': {}", kCall, path,
                    std::strerror(read_errno));
      }
      if (n == 0) break;
      bytes.insert(bytes.end(), chunk, chunk + n);
    }
    ::close(fd);
    *size = bytes.size();
    if (bytes.size() > capacity) {
      return fail(OMNIRT_STATUS_OUT_OF_RANGE, {}, "{}: key '{}' holds {} bytes; capacity is {}",
                  kCall, key, bytes.size(), capacity);
    }
    if (!bytes.empty()) std::memcpy(value, bytes.data(), bytes.size());
    return OMNIRT_STATUS_OK;
  });
}

omnirt_status FileStore::wait(const char* const* keys, size_t num_keys,
                              uint32_t timeout_ms) noexcept {
  constexpr const char* kCall = "file store wait";
  if (num_keys > 0 && keys == nullptr) return null_argument(kCall, "keys");
  return guard_api(kCall, [&]() -> omnirt_status {
    std::vector<std::string> paths;
    for (size_t i = 0; i < num_keys; ++i) {
      paths.push_back(path_of(keys[i], kCall));
      if (paths.back().empty()) return omnirt_last_error()->status;
    }
    size_t present = 0;  // keys appear for good: each is looked for until it is there
    const bool all = poll(timeout_ms, [&] {
      while (present < paths.size() && exists(paths[present])) ++present;
      return present == paths.size();
    });
    if (!all) {
      return fail(OMNIRT_STATUS_TIMEOUT, {}, "{}: key '{}' did not appear within {} ms", kCall,
                  keys[present], timeout_ms);
    }
    return OMNIRT_STATUS_OK;
  });
}

}  // namespace omnirt
