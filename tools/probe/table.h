// A plain-text table with aligned columns.
#ifndef OMNIRT_TOOLS_PROBE_TABLE_H_
#define OMNIRT_TOOLS_PROBE_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

namespace omnirt_probe {

/// Rows of cells printed under upper-case headers, each column as wide as its
/// widest cell, two spaces apart, indented by two. The last column is not padded.
class Table {
 public:
  explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace omnirt_probe

#endif  // OMNIRT_TOOLS_PROBE_TABLE_H_
