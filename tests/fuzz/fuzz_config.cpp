// The host's YAML configuration reader on arbitrary text: it accepts or
// refuses with a located message, and never crashes or lets an exception out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  omnirt::HostConfig config;
  std::string error;
  const omnirt_status status = omnirt::parse_config(text, "/fuzz/omnirt.yaml", &config, &error);
  if (status != OMNIRT_STATUS_OK && error.rfind("/fuzz/omnirt.yaml", 0) != 0) __builtin_trap();
  return 0;
}
