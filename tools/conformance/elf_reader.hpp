// Reads what a plugin's dynamic section says about it, without loading it: the
// symbols it exports and imports and the libraries it needs (rules 2 and 4).
#ifndef OMNIRT_CONFORMANCE_ELF_READER_HPP_
#define OMNIRT_CONFORMANCE_ELF_READER_HPP_

#include <string>
#include <vector>

namespace omnirt::conformance {

struct DynamicInfo {
  std::string error;                  // why the file could not be read; "" on success
  std::vector<std::string> exported;  // defined symbols other objects can bind to
  std::vector<std::string> imported;  // undefined symbols it expects from others
  std::vector<std::string> needed;    // DT_NEEDED entries (sonames)
};

// Parses a 64-bit little-endian ELF shared object.
DynamicInfo read_dynamic_info(const std::string& path);

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_ELF_READER_HPP_
