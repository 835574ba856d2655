// Vendor error codes as OmniRT statuses. A vendor keeps one table of the codes
// it knows (its status-mapping file); a failure keeps the vendor's own code as
// the native code and carries its symbolic name and the vendor's text.
#ifndef OMNIRT_PLUGIN_COMMON_VENDOR_STATUS_H_
#define OMNIRT_PLUGIN_COMMON_VENDOR_STATUS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::plugin_common {

struct VendorCode {
  int64_t code;
  const char* name;  // the vendor's symbolic name, "ACL_ERROR_BAD_ALLOC"
  omnirt_status status;
};

// The row for `code`; codes the table lacks are INTERNAL with an empty name.
template <size_t N>
VendorCode lookup(const VendorCode (&table)[N], int64_t code) {
  for (const VendorCode& row : table) {
    if (row.code == code) return row;
  }
  return {code, "", OMNIRT_STATUS_INTERNAL};
}

// Throws the Error for a failed vendor call:
// "<backend>: <call> failed: <NAME> (<code>): <vendor text>".
[[noreturn]] inline void fail_vendor(const char* backend, const char* call, const VendorCode& row,
                                     const std::string& vendor_text) {
  std::string message = std::string(backend) + ": " + call + " failed: ";
  message += row.name[0] != '\0' ? row.name : "error";
  message += " (" + std::to_string(row.code) + ")";
  if (!vendor_text.empty()) message += ": " + vendor_text;
  plugin::fail(row.status, message, row.code);
}

}  // namespace omnirt::plugin_common

#endif  // OMNIRT_PLUGIN_COMMON_VENDOR_STATUS_H_
