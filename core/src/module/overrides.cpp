#include "module/overrides.h"

namespace omnirt::wrap {

bool OverrideTable::add(const std::string& tag, Override entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.emplace(tag, entry).second;
}

bool OverrideTable::remove(const std::string& tag) {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.erase(tag) == 1;
}

std::optional<Override> OverrideTable::find(const std::string& tag) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(tag);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

}  // namespace omnirt::wrap
