// What omnirt-probe learns from a host, and the two ways it prints it.
#ifndef OMNIRT_TOOLS_PROBE_PROBE_REPORT_H_
#define OMNIRT_TOOLS_PROBE_PROBE_REPORT_H_

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "omnirt/host.h"

namespace omnirt_probe {

struct Device {
  int32_t index = 0;
  std::string name;
  std::string arch;
  int32_t compute_units = 0;
  uint64_t total_bytes = 0;                ///< mem_get_info's total, else the device info's
  std::optional<uint64_t> free_bytes;      ///< only where mem_get_info works
};

struct Backend {
  std::string name;
  std::string plugin_version;
  uint32_t abi_version = 0;
  std::string path;
  int32_t priority = 0;
  bool available = false;
  std::string unavailable_reason;
  uint64_t load_time_ns = 0;
  // Capabilities.
  std::string vendor;
  int32_t dl_device_type = 0;
  int32_t device_count = 0;
  uint64_t features = 0;
  uint64_t dtypes = 0;
  std::vector<std::string> module_formats;
  /// Formats the backend knows of but cannot load here: (format, reason).
  std::vector<std::pair<std::string, std::string>> unavailable_module_formats;
  std::vector<std::pair<std::string, int32_t>> op_sets;
  /// The collective library and its version ("gloo 0.5.0 (TCP)"), when the
  /// backend named one; else why not (collectives_reason).
  std::optional<std::string> collectives_library;
  std::string collectives_reason;
  /// Devices of an available backend (unavailable ones are not asked).
  std::vector<Device> devices;
  /// Errors met while asking the backend, one line each.
  std::vector<std::string> errors;
};

struct Candidate {
  std::string path;
  std::string real_path;
  int32_t source = 0;
  int32_t stage = 0;
  bool loaded = false;
  omnirt_status status = OMNIRT_STATUS_OK;
  bool skipped = false;  ///< left unloaded by choice, not rejected
  std::string reason;
  std::string backend_name;
  uint32_t abi_version = 0;
  uint64_t load_time_ns = 0;
  int32_t vet_outcome = OMNIRT_VET_NOT_VETTED;  ///< omnirt_vet_outcome
  bool vet_cached = false;
  uint64_t vet_time_ns = 0;
};

struct SearchDir {
  std::string path;
  int32_t source = 0;
  bool searched = false;
  std::string note;
};

struct ProbeReport {
  std::string library_version;
  uint32_t abi_version = 0;
  uint64_t host_create_ns = 0;
  std::vector<SearchDir> search_path;
  std::vector<Backend> backends;      ///< in selection order
  std::vector<Candidate> candidates;  ///< in search order, loaded or not

  size_t available_count() const;
};

/// Asks `host` everything the probe shows.
ProbeReport collect(omnirt_host* host, uint64_t host_create_ns);

/// Rewords the search-path notes that the probe's own --no-env and
/// --no-installed caused: the host words them for embedders, in API flags.
void name_own_flags(ProbeReport& report, bool no_env, bool no_installed);

/// The tables, fitted to `width` characters a line (0: no limit); `verbose`
/// adds the search path and every candidate's load time, and prints every
/// text in full whatever the width.
void print_text(const ProbeReport& report, bool verbose, size_t width, std::ostream& out);

/// The JSON document (schema_version 1): everything print_text can show.
nlohmann::ordered_json to_json(const ProbeReport& report);

}  // namespace omnirt_probe

#endif  // OMNIRT_TOOLS_PROBE_PROBE_REPORT_H_
