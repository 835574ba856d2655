// omnirt_wrap_module as the suite observes it: the call's status and the
// timeline entry it appends to a run report, read back from the report's
// JSON — the one place an embedder sees the attempts of a call that failed.
#ifndef OMNIRT_CONFORMANCE_MODULE_WRAP_HPP_
#define OMNIRT_CONFORMANCE_MODULE_WRAP_HPP_

#include <omnirt/host.h>

#include <string>
#include <vector>

namespace omnirt::conformance {

struct WrapAttempt {
  std::string tier;  // "compile", "override", "eager"
  omnirt_status status = OMNIRT_STATUS_INTERNAL;
  bool ok = false;
  bool selected = false;
  std::string reason;
};

struct Wrapped {
  omnirt_status status = OMNIRT_STATUS_INTERNAL;  // of omnirt_wrap_module
  std::string message;                            // its error message, on failure
  std::vector<WrapAttempt> attempts;              // the call's timeline entry
  std::string problem;              // why the timeline could not be read, or ""
  omnirt_module* module = nullptr;  // owned; NULL on failure

  Wrapped() = default;
  Wrapped(const Wrapped&) = delete;
  Wrapped& operator=(const Wrapped&) = delete;
  ~Wrapped() { omnirt_module_destroy(module); }

  // The attempt at `tier`, or NULL when the policy did not try it.
  const WrapAttempt* attempt(const std::string& tier) const;
};

// "not a module: ..." bytes in `format`: what a corrupt file looks like.
omnirt_module_source corrupt_module(const char* format);

// Wraps `source` on device 0 of `backend` with `tag` (may be NULL) and
// OMNIRT_WRAP_* `flags`, recording the timeline in a report of its own.
void wrap(omnirt_backend* backend, const omnirt_module_source& source, const char* tag,
          uint32_t flags, Wrapped* out);

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_MODULE_WRAP_HPP_
