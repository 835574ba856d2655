// How wide the probe's tables may be.
#ifndef OMNIRT_TOOLS_PROBE_TERMINAL_H_
#define OMNIRT_TOOLS_PROBE_TERMINAL_H_

#include <cstddef>

namespace omnirt_probe {

/// Lines printed to a pipe or a file are fitted to this many characters.
inline constexpr size_t kDefaultColumns = 100;

/// Characters a line of stdout may have: $COLUMNS when it is a positive
/// number, else the width of the terminal stdout is (TIOCGWINSZ), else
/// kDefaultColumns.
size_t output_columns();

}  // namespace omnirt_probe

#endif  // OMNIRT_TOOLS_PROBE_TERMINAL_H_
