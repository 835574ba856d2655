#include "table.h"

#include <algorithm>
#include <numeric>

namespace omnirt_probe {
namespace {

// The narrowest a wrapped column gets while there is room, so that it stays
// readable; below kNarrowest it is unreadable however narrow the screen.
constexpr size_t kMinWrapped = 24;
constexpr size_t kNarrowest = 8;

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

size_t display_width(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) { return !continuation(c); }));
}

// Byte offset just past the first `chars` characters of `text`.
size_t byte_offset(const std::string& text, size_t chars) {
  size_t offset = 0;
  for (size_t seen = 0; offset < text.size(); ++offset) {
    if (!continuation(text[offset]) && seen++ == chars) break;
  }
  return offset;
}

void print_line(const std::vector<std::string>& cells, const std::vector<size_t>& widths, std::ostream& out) {
  std::string line = " ";
  for (size_t i = 0; i < cells.size(); ++i) {
    line += ' ' + cells[i];
    if (i + 1 < cells.size()) line += std::string(widths[i] - display_width(cells[i]) + 1, ' ');
  }
  line.erase(line.find_last_not_of(' ') + 1);  // continuation lines end early
  out << line << '\n';
}

// Narrows the kWrap columns so that a line fits `width`: each gets an equal
// share of what the others leave, never more than it needs.
void fit(const std::vector<Column>& columns, size_t width, std::vector<size_t>& widths) {
  const size_t separators = 2 * widths.size();
  const size_t natural = std::accumulate(widths.begin(), widths.end(), separators);
  if (width == 0 || natural <= width) return;
  std::vector<size_t> shrinkable;
  size_t fixed = separators;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].fit == Fit::kKeep) {
      fixed += widths[i];
    } else {
      shrinkable.push_back(i);
    }
  }
  std::sort(shrinkable.begin(), shrinkable.end(), [&](size_t a, size_t b) { return widths[a] < widths[b]; });
  size_t budget = width > fixed ? width - fixed : 0;
  size_t minimums = 0;
  for (size_t i : shrinkable) minimums += std::min(widths[i], kMinWrapped);
  // On a narrow screen the minimums give way before the width does.
  const size_t floor = minimums <= budget ? kMinWrapped : kNarrowest;
  for (size_t k = 0; k < shrinkable.size(); ++k) {
    size_t& w = widths[shrinkable[k]];
    w = std::min(w, std::max(budget / (shrinkable.size() - k), floor));
    budget -= std::min(budget, w);
  }
}

}  // namespace

std::vector<std::string> wrap(const std::string& text, size_t width) {
  if (width == 0) return {text};
  std::vector<std::string> lines;
  std::string line;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(start, end - start);
    start = end + 1;
    while (display_width(word) > width) {  // a word alone too long for a line
      if (!line.empty()) lines.push_back(std::move(line));
      line.clear();
      // A path breaks after a '/' when that fills at least half the line.
      size_t cut = byte_offset(word, width);
      const size_t slash = word.rfind('/', cut - 1);
      if (slash != std::string::npos && display_width(word.substr(0, slash + 1)) >= width / 2) {
        cut = slash + 1;
      }
      lines.push_back(word.substr(0, cut));
      word.erase(0, cut);
    }
    const size_t needed = display_width(line) + (line.empty() ? 0 : 1) + display_width(word);
    if (needed > width && !line.empty()) {
      lines.push_back(std::move(line));
      line.clear();
    }
    if (!word.empty()) line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

void Table::print(std::ostream& out, size_t width) const {
  std::vector<size_t> widths(columns_.size(), 0);
  for (size_t i = 0; i < columns_.size(); ++i) widths[i] = display_width(columns_[i].header);
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], display_width(row[i]));
    }
  }
  fit(columns_, width, widths);

  std::vector<std::string> headers;
  for (const Column& c : columns_) headers.push_back(c.header);
  print_line(headers, widths, out);
  for (const auto& row : rows_) {
    // Each cell as its lines; the row takes as many lines as its tallest cell.
    std::vector<std::vector<std::string>> lines(row.size());
    size_t height = 1;
    for (size_t i = 0; i < row.size(); ++i) {
      const Fit rule = i < columns_.size() ? columns_[i].fit : Fit::kKeep;
      lines[i] = rule == Fit::kWrap ? wrap(row[i], widths[i]) : std::vector<std::string>{row[i]};
      height = std::max(height, lines[i].size());
    }
    for (size_t l = 0; l < height; ++l) {
      std::vector<std::string> cells;
      for (const auto& cell : lines) cells.push_back(l < cell.size() ? cell[l] : "");
      print_line(cells, widths, out);
    }
  }
}

}  // namespace omnirt_probe
