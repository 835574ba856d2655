#include "setting_values.h"

#include <algorithm>
#include <cctype>

#include "error.h"

namespace omnirt::triton {

bool parse_flag(const std::string& where, const std::string& value) {
  std::string lower = value;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true" || lower == "1" || lower == "yes" || lower == "on") return true;
  if (lower == "false" || lower == "0" || lower == "no" || lower == "off") return false;
  throw Error(TRITONSERVER_ERROR_INVALID_ARG, where + ": expected true or false, got '" + value + "'");
}

std::vector<std::string> split_paths(const std::string& value) {
  std::vector<std::string> paths;
  size_t begin = 0;
  while (begin <= value.size()) {
    const size_t end = std::min(value.find(':', begin), value.size());
    if (end > begin) paths.push_back(value.substr(begin, end - begin));
    begin = end + 1;
  }
  return paths;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace omnirt::triton
