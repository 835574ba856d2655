#include "features.hpp"

#include <omnirt/types.h>

#include <cstdio>

namespace omnirt::conformance {

void PrintTo(const Feature& feature, std::ostream* os) { *os << feature.name; }

const std::vector<Feature>& known_features() {
#define KIT_FEATURE(name) Feature{OMNIRT_FEATURE_##name, #name}
  static const std::vector<Feature> features = {
      KIT_FEATURE(HOST_ALLOC),   KIT_FEATURE(ASYNC_COPY),
      KIT_FEATURE(STREAM_ORDERED_ALLOC), KIT_FEATURE(STREAMS),
      KIT_FEATURE(EVENTS),       KIT_FEATURE(EVENT_TIMING),
      KIT_FEATURE(STREAM_WAIT_EVENT), KIT_FEATURE(MEM_INFO),
      KIT_FEATURE(MEMORY_STATS), KIT_FEATURE(GRAPH_CAPTURE),
      KIT_FEATURE(MODULES),      KIT_FEATURE(COMPILE),
      KIT_FEATURE(NAMED_OPS),    KIT_FEATURE(PEER_COPY),
      KIT_FEATURE(DEFAULT_STREAM), KIT_FEATURE(OUTPUT_NAMES),
      KIT_FEATURE(COLLECTIVES), KIT_FEATURE(ENGINE_PREPARE),
  };
#undef KIT_FEATURE
  return features;
}

uint64_t known_feature_bits() {
  uint64_t bits = 0;
  for (const Feature& f : known_features()) bits |= f.bit;
  return bits;
}

uint64_t prerequisites(uint64_t feature) {
  switch (feature) {
    case OMNIRT_FEATURE_ASYNC_COPY:
    case OMNIRT_FEATURE_STREAM_ORDERED_ALLOC:
    case OMNIRT_FEATURE_EVENTS:  // events are recorded on streams
    case OMNIRT_FEATURE_GRAPH_CAPTURE:
    case OMNIRT_FEATURE_DEFAULT_STREAM:  // its handle is used through the stream calls
      return OMNIRT_FEATURE_STREAMS;
    case OMNIRT_FEATURE_EVENT_TIMING:
    case OMNIRT_FEATURE_STREAM_WAIT_EVENT:
      return OMNIRT_FEATURE_EVENTS | OMNIRT_FEATURE_STREAMS;
    case OMNIRT_FEATURE_COMPILE:
    case OMNIRT_FEATURE_OUTPUT_NAMES:
    case OMNIRT_FEATURE_ENGINE_PREPARE:
      return OMNIRT_FEATURE_MODULES;
    default:
      return 0;
  }
}

std::string feature_names(uint64_t bits) {
  std::string out;
  for (const Feature& f : known_features()) {
    if ((bits & f.bit) == 0) continue;
    out += out.empty() ? "" : "|";
    out += f.name;
    bits &= ~f.bit;
  }
  if (bits != 0) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(bits));
    out += out.empty() ? "" : "|";
    out += hex;
  }
  return out.empty() ? "none" : out;
}

}  // namespace omnirt::conformance
