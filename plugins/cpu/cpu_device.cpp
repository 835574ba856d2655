#include "cpu_device.h"

#include <dlpack/dlpack.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu {
namespace {

// The value of the first "key<spaces>: value" line of a /proc file, or "".
std::string proc_field(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    const auto colon = line.find(':', key.size());
    if (colon == std::string::npos || line.find_first_not_of(" \t", key.size()) != colon) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return {};
}

// A /proc/meminfo field ("MemTotal:   16314924 kB") in bytes, or 0.
uint64_t meminfo_bytes(const char* key) {
  const std::string value = proc_field("/proc/meminfo", key);
  return value.empty() ? 0 : std::stoull(value) * 1024;
}

std::string cpu_model_name(const char* arch) {
  // x86 names the model; arm64 kernels often do not, so fall back to the arch.
  for (const char* key : {"model name", "Model", "cpu model"}) {
    std::string name = proc_field("/proc/cpuinfo", key);
    if (!name.empty()) return name;
  }
  return std::string(arch) + " CPU";
}

template <size_t N>
void copy_text(char (&dst)[N], const std::string& src) {
  std::snprintf(dst, N, "%s", src.c_str());
}

}  // namespace

void CpuDevice::check_index(int32_t device) {
  if (device < 0 || device >= kCount) {
    plugin::fail(OMNIRT_STATUS_OUT_OF_RANGE,
                 "cpu: device " + std::to_string(device) +
                     " does not exist: the cpu backend has one device, index 0");
  }
}

uint64_t CpuDevice::physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? uint64_t(pages) * uint64_t(page_size) : 0;
}

void CpuDevice::info(omnirt_device_info& out) {
  std::call_once(described_, [this] {
    utsname system{};
    const char* arch = uname(&system) == 0 ? system.machine : "unknown";
    description_.dl_device_type = kDLCPU;
    copy_text(description_.name, cpu_model_name(arch));
    copy_text(description_.arch, arch);
    description_.total_memory_bytes = physical_memory_bytes();
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    description_.compute_units = cores > 0 ? int32_t(cores) : 0;
  });
  out.dl_device_type = description_.dl_device_type;
  std::memcpy(out.name, description_.name, sizeof out.name);
  std::memcpy(out.arch, description_.arch, sizeof out.arch);
  out.total_memory_bytes = description_.total_memory_bytes;
  out.compute_units = description_.compute_units;
}

void CpuDevice::memory_info(size_t& free_bytes, size_t& total_bytes) {
  const uint64_t total = meminfo_bytes("MemTotal");
  const uint64_t available = meminfo_bytes("MemAvailable");
  if (total == 0 || available == 0) {
    plugin::fail(OMNIRT_STATUS_INTERNAL,
                 "cpu: cannot read MemTotal and MemAvailable from /proc/meminfo");
  }
  total_bytes = size_t(total);
  free_bytes = size_t(available);
}

}  // namespace omnirt::cpu
