#include "terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

namespace omnirt_probe {

size_t output_columns() {
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const unsigned long value = std::strtoul(columns, &end, 10);
    if (end != columns && *end == '\0' && value > 0) return value;
  }
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return size.ws_col;
  }
  return kDefaultColumns;
}

}  // namespace omnirt_probe
