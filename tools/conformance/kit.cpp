#include "kit.hpp"

#include <cstring>

#include "features.hpp"

namespace omnirt::conformance {
namespace {

Kit& the_kit() {
  static Kit kit;
  return kit;
}

template <class T>
T sized() {
  T value;
  std::memset(static_cast<void*>(&value), 0, sizeof value);
  value.struct_size = sizeof value;
  return value;
}

}  // namespace

const Kit& kit() { return the_kit(); }

Kit& init_kit(const std::string& plugin_path, const std::string& config_path) {
  Kit& k = the_kit();
  k.plugin_path = plugin_path;
  k.config_path = config_path;
  k.session = std::make_unique<Session>(plugin_path, config_path);
  k.info = sized<omnirt_backend_info>();
  k.caps = sized<omnirt_capabilities>();
  if (omnirt_backend* b = k.session->backend()) {
    // Failures here are the Loading and Capabilities groups' to report. The
    // device count comes first: it is a first real use, which loads a lazy
    // vendor runtime, and only then can capabilities be exact (rule 4).
    omnirt_backend_get_info(b, &k.info);
    omnirt_get_device_count(b, &k.device_count);
    omnirt_get_capabilities(b, &k.caps);
  }
  return k;
}

void shutdown_kit() { the_kit().session.reset(); }

std::optional<std::string> missing(Needs needs, uint64_t features) {
  const Kit& k = kit();
  if (needs == Needs::kFile) return std::nullopt;
  const omnirt_candidate* c = k.session->candidate();
  if (c == nullptr) return "the host found no plugin at " + k.plugin_path;
  if (k.session->backend() == nullptr) {
    return std::string("the plugin was rejected at stage '") + omnirt_load_stage_name(c->stage) +
           "': " + c->reason;
  }
  if (needs == Needs::kBackend) return std::nullopt;
  if (!k.info.available) {
    return std::string("backend unavailable here: ") + k.info.unavailable_reason;
  }
  if (k.device_count < 1) return std::string("backend reports no devices");
  const uint64_t absent = features & ~k.caps.features;
  if (absent != 0) return "backend does not advertise " + feature_names(absent);
  return std::nullopt;
}

void KitTest::SetUp() {
  if (auto why = missing(needs_, features_)) GTEST_SKIP() << *why;
}

std::string describe_failure(omnirt_status status) {
  std::string out = omnirt_status_name(status);
  if (status == OMNIRT_STATUS_OK || status == OMNIRT_STATUS_NOT_READY) return out;
  const omnirt_error_info* e = omnirt_last_error();
  if (e->status == status && e->message[0] != '\0') out += std::string(": ") + e->message;
  return out;
}

::testing::AssertionResult IsOk(const char* expr, omnirt_status got) {
  if (got == OMNIRT_STATUS_OK) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << expr << " returned " << describe_failure(got);
}

::testing::AssertionResult HasStatus(const char* expr, const char*, omnirt_status got,
                                     omnirt_status want) {
  if (got == want) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << expr << " returned " << describe_failure(got)
                                       << ", expected " << omnirt_status_name(want);
}

::testing::AssertionResult IsRejected(const char* expr, omnirt_status got) {
  if (got != OMNIRT_STATUS_INVALID_ARGUMENT && got != OMNIRT_STATUS_OUT_OF_RANGE) {
    return ::testing::AssertionFailure() << expr << " returned " << describe_failure(got)
                                         << ", expected INVALID_ARGUMENT or OUT_OF_RANGE";
  }
  if (omnirt_last_error()->message[0] == '\0') {
    return ::testing::AssertionFailure()
           << expr << " returned " << omnirt_status_name(got)
           << " without a message saying which argument was wrong";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace omnirt::conformance
