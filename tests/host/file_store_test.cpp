// omnirt_file_store_create: the host's file-backed omnirt_kv_store, used by
// threads and processes at once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

namespace {

using ::testing::HasSubstr;
using namespace omnirt_test;
using Clock = std::chrono::steady_clock;

struct StoreDeleter {
  void operator()(omnirt_kv_store* store) const noexcept { omnirt_file_store_destroy(store); }
};
using StorePtr = std::unique_ptr<omnirt_kv_store, StoreDeleter>;

StorePtr open_store(const std::string& directory) {
  omnirt_kv_store* store = nullptr;
  EXPECT_EQ(omnirt_file_store_create(directory.c_str(), &store), OMNIRT_STATUS_OK) << last_message();
  return StorePtr(store);
}

omnirt_status put(const omnirt_kv_store& store, const std::string& key, const std::string& value) {
  return store.put(store.user_data, key.c_str(), value.data(), value.size());
}

// The value of `key`, or the status of a failed get in *status.
std::string get(const omnirt_kv_store& store, const std::string& key, uint32_t timeout_ms,
                omnirt_status* status = nullptr) {
  std::string value(1 << 16, '\0');
  size_t size = 0;
  const omnirt_status result =
      store.get(store.user_data, key.c_str(), value.data(), value.size(), &size, timeout_ms);
  if (status != nullptr) *status = result;
  if (result != OMNIRT_STATUS_OK) return {};
  value.resize(size);
  return value;
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(FileStoreTest, CreatesMissingDirectoriesWithMode0700) {
  TempDir dir;
  const std::string nested = dir / "job7/store";
  StorePtr store = open_store(nested);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->struct_size, sizeof(omnirt_kv_store));
  EXPECT_EQ(mode_of(dir / "job7"), 0700u);
  EXPECT_EQ(mode_of(nested), 0700u);
}

TEST(FileStoreTest, RefusesAWorldWritableDirectoryAndWhatIsNoDirectory) {
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "open").c_str(), 0700), 0);
  ASSERT_EQ(chmod((dir / "open").c_str(), 0777), 0);
  omnirt_kv_store* store = reinterpret_cast<omnirt_kv_store*>(0x1);
  EXPECT_EQ(omnirt_file_store_create((dir / "open").c_str(), &store), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("world-writable"));
  EXPECT_EQ(store, nullptr);

  write_file(dir / "file", "x");
  EXPECT_EQ(omnirt_file_store_create((dir / "file").c_str(), &store), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("not a directory"));
  EXPECT_EQ(omnirt_file_store_create(nullptr, &store), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(omnirt_file_store_create(dir.path().c_str(), nullptr), OMNIRT_STATUS_INVALID_ARGUMENT);
}

TEST(FileStoreTest, GetReturnsWhatPutStoredAndTheLatestValue) {
  TempDir dir;
  StorePtr store = open_store(dir.path());
  const std::string binary("a\0b\xff", 4);
  ASSERT_EQ(put(*store, "job/rank0", binary), OMNIRT_STATUS_OK) << last_message();
  EXPECT_EQ(get(*store, "job/rank0", 0), binary);
  ASSERT_EQ(put(*store, "job/rank0", "second"), OMNIRT_STATUS_OK);
  EXPECT_EQ(get(*store, "job/rank0", 0), "second");
  ASSERT_EQ(put(*store, "empty", ""), OMNIRT_STATUS_OK);
  omnirt_status status = OMNIRT_STATUS_INTERNAL;
  EXPECT_EQ(get(*store, "empty", 0, &status), "");
  EXPECT_EQ(status, OMNIRT_STATUS_OK);
}

TEST(FileStoreTest, KeysStayFilesInsideTheDirectory) {
  TempDir dir;
  StorePtr store = open_store(dir / "store");
  ASSERT_EQ(put(*store, "../escape", "x"), OMNIRT_STATUS_OK) << last_message();
  ASSERT_EQ(put(*store, ".hidden", "y"), OMNIRT_STATUS_OK);
  EXPECT_FALSE(std::filesystem::exists(dir / "escape"));
  EXPECT_EQ(get(*store, "../escape", 0), "x");
  EXPECT_EQ(get(*store, ".hidden", 0), "y");
  for (const auto& entry : std::filesystem::directory_iterator(dir / "store")) {
    EXPECT_NE(entry.path().filename().string()[0], '.') << entry.path();  // no temporaries left
  }
}

TEST(FileStoreTest, RefusesKeysThatCannotBeFileNames) {
  TempDir dir;
  StorePtr store = open_store(dir.path());
  EXPECT_EQ(put(*store, "", "x"), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(put(*store, std::string(300, 'k'), "x"), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("at most 255 fit"));
}

TEST(FileStoreTest, GetOfAMissingKeyTimesOutWithinItsLimit) {
  TempDir dir;
  StorePtr store = open_store(dir.path());
  const Clock::time_point start = Clock::now();
  omnirt_status status = OMNIRT_STATUS_OK;
  get(*store, "never", 50, &status);
  const auto waited = Clock::now() - start;
  EXPECT_EQ(status, OMNIRT_STATUS_TIMEOUT);
  EXPECT_THAT(last_message(), HasSubstr("'never' did not appear within 50 ms"));
  EXPECT_GE(waited, std::chrono::milliseconds(50));
  EXPECT_LT(waited, std::chrono::milliseconds(1000));
}

TEST(FileStoreTest, GetIntoTooSmallABufferIsOutOfRangeWithTheSize) {
  TempDir dir;
  StorePtr store = open_store(dir.path());
  ASSERT_EQ(put(*store, "key", "0123456789"), OMNIRT_STATUS_OK);
  char small[4];
  size_t size = 0;
  EXPECT_EQ(store->get(store->user_data, "key", small, sizeof small, &size, 0), OMNIRT_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(size, 10u);
}

TEST(FileStoreTest, WaitReturnsOnceEveryKeyExistsAndNamesTheMissingOne) {
  TempDir dir;
  StorePtr store = open_store(dir.path());
  const char* keys[] = {"a", "b"};
  ASSERT_EQ(put(*store, "a", "1"), OMNIRT_STATUS_OK);
  EXPECT_EQ(store->wait(store->user_data, keys, 2, 30), OMNIRT_STATUS_TIMEOUT);
  EXPECT_THAT(last_message(), HasSubstr("'b'"));
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    put(*store, "b", "2");
  });
  EXPECT_EQ(store->wait(store->user_data, keys, 2, 10000), OMNIRT_STATUS_OK) << last_message();
  writer.join();
}

// Readers polling a key that is rewritten all the time see whole values only.
TEST(FileStoreTest, ConcurrentWritersAndReadersSeeWholeValues) {
  TempDir dir;
  StorePtr store = open_store(dir.path());
  ASSERT_EQ(put(*store, "shared", std::string(40000, 'a')), OMNIRT_STATUS_OK);
  std::vector<std::thread> threads;
  for (char fill : {'b', 'c'}) {
    threads.emplace_back([&, fill] {
      for (int i = 0; i < 100; ++i) put(*store, "shared", std::string(40000 + i, fill));
    });
  }
  bool torn = false;
  threads.emplace_back([&] {
    for (int i = 0; i < 200; ++i) {
      const std::string value = get(*store, "shared", 1000);
      torn = torn || value.size() < 40000 || value.find_first_not_of(value[0]) != std::string::npos;
    }
  });
  for (std::thread& thread : threads) thread.join();
  EXPECT_FALSE(torn);
}

// Four processes on one directory, each with its own store: every one puts
// its key, then reads everyone's.
TEST(FileStoreTest, ProcessesMeetThroughOneDirectory) {
  TempDir dir;
  constexpr int kProcesses = 4;
  std::vector<pid_t> children;
  for (int rank = 0; rank < kProcesses; ++rank) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      omnirt_kv_store* store = nullptr;
      if (omnirt_file_store_create(dir.path().c_str(), &store) != OMNIRT_STATUS_OK) _exit(2);
      const std::string mine = "rank" + std::to_string(rank);
      if (store->put(store->user_data, mine.c_str(), mine.data(), mine.size()) != OMNIRT_STATUS_OK) _exit(3);
      for (int peer = 0; peer < kProcesses; ++peer) {
        const std::string key = "rank" + std::to_string(peer);
        char value[16];
        size_t size = 0;
        if (store->get(store->user_data, key.c_str(), value, sizeof value, &size, 20000) != OMNIRT_STATUS_OK ||
            std::string(value, size) != key) {
          _exit(4);
        }
      }
      omnirt_file_store_destroy(store);
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child exit " << status;
  }
}

TEST(FileStoreTest, DestroyAcceptsNullAndIgnoresAStoreItDidNotMake) {
  TempDir dir;
  StorePtr store = open_store(dir.path());
  omnirt_file_store_destroy(nullptr);
  omnirt_kv_store foreign = *store;  // a copy is not the store the host made
  omnirt_file_store_destroy(&foreign);
  EXPECT_EQ(put(*store, "still", "there"), OMNIRT_STATUS_OK);
  EXPECT_EQ(get(*store, "still", 0), "there");
}

}  // namespace
