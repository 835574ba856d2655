// The group_start ... group_end the calling thread has open on each backend
// instance (NCCL's group semantics are per thread): how deep it nests, and
// what the collectives issued inside it leave for group_end to do.
#ifndef OMNIRT_PLUGIN_COMMON_THREAD_GROUPS_H_
#define OMNIRT_PLUGIN_COMMON_THREAD_GROUPS_H_

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::plugin_common {

template <class Entry>
class ThreadGroups {
 public:
  /// Opens (or nests) a group of `owner` on this thread.
  static void start(const void* owner) { ++open_groups()[owner].depth; }

  /// The entries of `owner`'s open group on this thread; nullptr when none is open.
  static std::vector<Entry>* entries(const void* owner) {
    auto& groups = open_groups();
    const auto it = groups.find(owner);
    return it == groups.end() ? nullptr : &it->second.entries;
  }

  /// Closes one level. When it closed the outermost, returns the group's
  /// entries; else nothing. INVALID_ARGUMENT without an open group.
  static std::optional<std::vector<Entry>> end(const void* owner, const char* backend) {
    auto& groups = open_groups();
    const auto it = groups.find(owner);
    if (it == groups.end()) {
      plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                   std::string(backend) + ": group_end without a group_start on this thread");
    }
    if (--it->second.depth > 0) return std::nullopt;
    std::vector<Entry> entries = std::move(it->second.entries);
    groups.erase(it);
    return entries;
  }

 private:
  struct Group {
    int depth = 0;
    std::vector<Entry> entries;
  };
  static std::unordered_map<const void*, Group>& open_groups() {
    thread_local std::unordered_map<const void*, Group> groups;
    return groups;
  }
};

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_THREAD_GROUPS_H_
