// Words for the numbers of the C API, as omnirt-probe prints them.
#ifndef OMNIRT_TOOLS_PROBE_NAMES_H_
#define OMNIRT_TOOLS_PROBE_NAMES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace omnirt_probe {

/// "api", "environment", "config", "installed".
const char* source_name(int32_t source);
/// "not_vetted", "passed", "rejected" for an omnirt_vet_outcome.
const char* vet_outcome_name(int32_t outcome);
/// DLPack device type ("cpu", "cuda", "ext_dev", ...).
const char* device_type_name(int32_t dl_device_type);
/// One word per OMNIRT_FEATURE_* bit set ("streams", "events", ...); unknown bits as "bit<N>".
std::vector<std::string> feature_names(uint64_t features);
/// One word per dtype bit set ("f32", "bf16", ...); unknown bits as "dtype<N>".
std::vector<std::string> dtype_names(uint64_t dtypes);
/// "1.0" for a packed ABI version.
std::string version_string(uint32_t version);
/// "1.50 GiB" for a byte count.
std::string bytes_string(uint64_t bytes);

}  // namespace omnirt_probe

#endif  // OMNIRT_TOOLS_PROBE_NAMES_H_
