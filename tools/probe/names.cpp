#include "names.h"

#include <cstdio>

#include "omnirt/host.h"

namespace omnirt_probe {
namespace {

// Appends the name of every set bit; bits beyond `names` as prefix<N>.
std::vector<std::string> bit_names(uint64_t bits, const char* const* names, int count, const char* prefix) {
  std::vector<std::string> words;
  for (int bit = 0; bit < 64; ++bit) {
    if ((bits & (uint64_t{1} << bit)) == 0) continue;
    words.push_back(bit < count ? names[bit] : prefix + std::to_string(bit));
  }
  return words;
}

}  // namespace

const char* source_name(int32_t source) {
  switch (source) {
    case OMNIRT_SOURCE_API: return "api";
    case OMNIRT_SOURCE_ENVIRONMENT: return "environment";
    case OMNIRT_SOURCE_CONFIG: return "config";
    case OMNIRT_SOURCE_INSTALLED: return "installed";
    default: return "unknown";
  }
}

const char* vet_outcome_name(int32_t outcome) {
  switch (outcome) {
    case OMNIRT_VET_NOT_VETTED: return "not_vetted";
    case OMNIRT_VET_PASSED: return "passed";
    case OMNIRT_VET_REJECTED: return "rejected";
    default: return "unknown";
  }
}

const char* device_type_name(int32_t dl_device_type) {
  switch (dl_device_type) {
    case kDLCPU: return "cpu";
    case kDLCUDA: return "cuda";
    case kDLCUDAHost: return "cuda_host";
    case kDLOpenCL: return "opencl";
    case kDLVulkan: return "vulkan";
    case kDLMetal: return "metal";
    case kDLVPI: return "vpi";
    case kDLROCM: return "rocm";
    case kDLROCMHost: return "rocm_host";
    case kDLExtDev: return "ext_dev";
    case kDLCUDAManaged: return "cuda_managed";
    default: return "unknown";
  }
}

std::vector<std::string> feature_names(uint64_t features) {
  // Indexed by bit, as in types.h.
  static const char* const kNames[] = {"host_alloc",  "async_copy",     "stream_ordered_alloc",
                                       "streams",     "events",         "event_timing",
                                       "stream_wait_event", "mem_info", "memory_stats",
                                       "graph_capture", "modules",      "compile",
                                       "named_ops",   "peer_copy",      "default_stream",
                                       "output_names", "collectives",   "engine_prepare"};
  return bit_names(features, kNames, static_cast<int>(sizeof kNames / sizeof kNames[0]), "bit");
}

std::vector<std::string> dtype_names(uint64_t dtypes) {
  // Indexed by omnirt_dtype.
  static const char* const kNames[] = {"f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "u8", "bool"};
  static_assert(sizeof kNames / sizeof kNames[0] == OMNIRT_DTYPE_COUNT_1_0);
  return bit_names(dtypes, kNames, OMNIRT_DTYPE_COUNT_1_0, "dtype");
}

std::string version_string(uint32_t version) {
  return std::to_string(OMNIRT_VERSION_MAJOR(version)) + "." + std::to_string(OMNIRT_VERSION_MINOR(version));
}

std::string bytes_string(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.2f %s", value, kUnits[unit]);
  return text;
}

}  // namespace omnirt_probe
