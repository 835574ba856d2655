// Small text helpers the kit's reports share.
#ifndef OMNIRT_CONFORMANCE_TEXT_HPP_
#define OMNIRT_CONFORMANCE_TEXT_HPP_

#include <string>
#include <vector>

namespace omnirt::conformance {

inline std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_TEXT_HPP_
