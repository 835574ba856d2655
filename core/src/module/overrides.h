// Embedder overrides of one backend: tag -> kernel, registered through
// omnirt_register_override. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "omnirt/host.h"

namespace omnirt::wrap {

struct Override {
  omnirt_override_fn fn = nullptr;
  void* user_data = nullptr;
};

class OverrideTable {
 public:
  /// False when `tag` already has an override.
  bool add(const std::string& tag, Override entry);
  /// False when `tag` has none.
  bool remove(const std::string& tag);
  std::optional<Override> find(const std::string& tag) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Override> entries_;
};

}  // namespace omnirt::wrap
