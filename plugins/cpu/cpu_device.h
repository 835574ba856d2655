// The one device of the cpu backend: the machine itself.
#ifndef OMNIRT_PLUGINS_CPU_CPU_DEVICE_H_
#define OMNIRT_PLUGINS_CPU_CPU_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "omnirt/types.h"

namespace omnirt::cpu {

class CpuDevice {
 public:
  static constexpr int32_t kCount = 1;

  // Throws OUT_OF_RANGE unless `device` is 0.
  static void check_index(int32_t device);

  // Physical memory, from sysconf: cheap, so the backend can bound
  // allocations without touching /proc at create.
  static uint64_t physical_memory_bytes();

  // CPU model (/proc/cpuinfo), architecture (uname), online cores, memory.
  // Read once per instance, on first use.
  void info(omnirt_device_info& out);
  // MemAvailable and MemTotal from /proc/meminfo, read on every call.
  static void memory_info(size_t& free_bytes, size_t& total_bytes);

 private:
  std::once_flag described_;
  omnirt_device_info description_{};
};

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_CPU_DEVICE_H_
