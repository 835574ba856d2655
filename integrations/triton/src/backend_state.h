// The backend-wide state: the server process's one OmniRT host, made at
// TRITONBACKEND_Initialize and destroyed at TRITONBACKEND_Finalize (Triton
// finalizes a backend once no model uses it; a later load makes a new host).
#pragma once

#include <string>
#include <vector>

#include "backend_settings.h"
#include "omnirt/cpp/host.hpp"

namespace omnirt::triton {

class BackendState {
 public:
  /// Creates the host; throws Error with OmniRT's reason when it cannot (a
  /// bad configuration file).
  explicit BackendState(const BackendSettings& settings);

  omnirt_host* host() const { return host_.get(); }
  /// For the log: the host, then one line per backend and per rejected
  /// plugin file.
  std::vector<std::string> describe() const;

 private:
  omnirt::Host host_;
};

}  // namespace omnirt::triton
