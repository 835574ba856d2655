// The host: what an omnirt_host* points to.
//
// Host-wide state for new features (e.g. run reports) goes here; read the
// configuration through `config`.
#ifndef OMNIRT_CORE_HOST_H_
#define OMNIRT_CORE_HOST_H_

#include <vector>

#include "candidate.h"
#include "config.h"
#include "registry.h"

struct omnirt_host {
  explicit omnirt_host(omnirt::HostConfig host_config)
      : config(std::move(host_config)), registry(config, this) {}

  /// The configuration file's content, with environment overrides applied
  /// (OMNIRT_DISABLE_COMPILE). Never changes after creation.
  const omnirt::HostConfig config;
  /// Every place in the search path, searched or not, in search order.
  std::vector<omnirt::SearchDirRecord> search_dirs;
  /// Candidates and backends. Declared last: destroyed (plugins unloaded) first.
  omnirt::Registry registry;
};

#endif  // OMNIRT_CORE_HOST_H_
