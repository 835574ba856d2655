// A host made exactly as a production embedder makes one, holding only the
// plugin under test: that file through the API, no installed plugin directory,
// no environment, and the vendor's configuration file (per-backend options,
// e.g. where a simulated vendor runtime lives).
#ifndef OMNIRT_CONFORMANCE_SESSION_HPP_
#define OMNIRT_CONFORMANCE_SESSION_HPP_

#include <omnirt/host.h>

#include <string>

namespace omnirt::conformance {

class Session {
 public:
  // `plugin_path` "" makes a host with no plugin (a baseline for probes);
  // `config_path` "" means no configuration file.
  Session(const std::string& plugin_path, const std::string& config_path);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Why omnirt_host_create failed (bad configuration file), "" when it did not.
  const std::string& error() const { return error_; }
  omnirt_host* host() const { return host_; }
  // The plugin's diagnostic record; NULL when the host saw no candidate.
  const omnirt_candidate* candidate() const { return has_candidate_ ? &candidate_ : nullptr; }
  // The plugin's backend, available or not; NULL when the plugin was rejected.
  omnirt_backend* backend() const { return backend_; }

 private:
  omnirt_host* host_ = nullptr;
  std::string error_;
  bool has_candidate_ = false;
  omnirt_candidate candidate_{};
  omnirt_backend* backend_ = nullptr;
};

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_SESSION_HPP_
