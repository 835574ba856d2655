// A plain-text table with aligned columns that fits a given width.
#ifndef OMNIRT_TOOLS_PROBE_TABLE_H_
#define OMNIRT_TOOLS_PROBE_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

namespace omnirt_probe {

/// How a column gives up width when the table is wider than the screen.
enum class Fit {
  kKeep,  ///< never narrower than its widest cell (names, numbers, stages)
  kWrap,  ///< text wraps onto continuation lines, at spaces, else after a '/'
};

struct Column {
  Column(const char* header_text, Fit fit_rule = Fit::kKeep) : header(header_text), fit(fit_rule) {}
  std::string header;
  Fit fit;
};

/// Rows of cells printed under upper-case headers, each column as wide as its
/// widest cell, two spaces apart, indented by two. The last column is not
/// padded. Widths count characters (UTF-8 code points), not bytes.
/// `text` as lines of at most `width` characters (0: one line), broken at
/// spaces; a word longer than a line breaks after a '/', else anywhere.
std::vector<std::string> wrap(const std::string& text, size_t width);

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  /// Prints the table within `width` characters a line when the kWrap
  /// columns can give up enough (each keeps a few characters); nothing is
  /// cut off. `width` 0 prints every cell on one line.
  void print(std::ostream& out, size_t width = 0) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace omnirt_probe

#endif  // OMNIRT_TOOLS_PROBE_TABLE_H_
