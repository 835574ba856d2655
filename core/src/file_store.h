// The file-backed key-value store behind omnirt_file_store_create: one file
// per key in a directory, written atomically, polled by readers. Several
// processes and threads may use stores on one directory at once.
#ifndef OMNIRT_CORE_FILE_STORE_H_
#define OMNIRT_CORE_FILE_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "omnirt/types.h"

namespace omnirt {

class FileStore {
 public:
  /// Opens `directory`, creating it and its missing parents with mode 0700.
  /// INVALID_ARGUMENT (recorded for omnirt_last_error) when it is not a
  /// directory, not writable or world-writable.
  static omnirt_status open(const char* directory, std::unique_ptr<FileStore>* out) noexcept;

  /// The C view handed to embedders; its user_data is this store.
  omnirt_kv_store* kv() noexcept { return &kv_; }

  // omnirt_kv_store's callbacks (types.h has their contracts).
  omnirt_status put(const char* key, const void* value, size_t size) noexcept;
  omnirt_status get(const char* key, void* value, size_t capacity, size_t* size,
                    uint32_t timeout_ms) noexcept;
  omnirt_status wait(const char* const* keys, size_t num_keys, uint32_t timeout_ms) noexcept;

 private:
  explicit FileStore(std::string directory);
  // The file of `key`, or "" with INVALID_ARGUMENT recorded for a key that
  // cannot be a file name.
  std::string path_of(const char* key, const char* call) const noexcept;

  const std::string directory_;
  omnirt_kv_store kv_;
};

}  // namespace omnirt

#endif  // OMNIRT_CORE_FILE_STORE_H_
