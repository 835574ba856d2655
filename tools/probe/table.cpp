#include "table.h"

#include <algorithm>

namespace omnirt_probe {
namespace {

void print_row(const std::vector<std::string>& cells, const std::vector<size_t>& widths, std::ostream& out) {
  out << " ";
  for (size_t i = 0; i < cells.size(); ++i) {
    out << ' ' << cells[i];
    if (i + 1 < cells.size()) out << std::string(widths[i] - cells[i].size() + 1, ' ');
  }
  out << '\n';
}

}  // namespace

void Table::print(std::ostream& out) const {
  std::vector<size_t> widths(headers_.size(), 0);
  for (size_t i = 0; i < headers_.size(); ++i) widths[i] = headers_[i].size();
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  print_row(headers_, widths, out);
  for (const auto& row : rows_) print_row(row, widths, out);
}

}  // namespace omnirt_probe
