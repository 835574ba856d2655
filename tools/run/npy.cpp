#include "npy.h"

#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <stdexcept>

namespace omnirt::run {
namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct Descr {
  const char* text;
  DLDataType dtype;
};
// '<' little-endian, '|' byte-sized (no order).
const Descr kDescrs[] = {
    {"<f4", {kDLFloat, 32, 1}}, {"<f8", {kDLFloat, 64, 1}}, {"<f2", {kDLFloat, 16, 1}},
    {"<i4", {kDLInt, 32, 1}},   {"<i8", {kDLInt, 64, 1}},   {"<i2", {kDLInt, 16, 1}},
    {"|i1", {kDLInt, 8, 1}},    {"|u1", {kDLUInt, 8, 1}},   {"|b1", {OMNIRT_DL_BOOL, 8, 1}},
};

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  throw std::runtime_error(path + ": " + why);
}

DLDataType parse_descr(const std::string& path, std::string descr) {
  if (!descr.empty() && descr[0] == '=')
    descr[0] = '<';  // native order: this is little-endian x86/arm
  for (const Descr& d : kDescrs) {
    if (descr == d.text) return d.dtype;
  }
  bad(path,
      "unsupported dtype '" + descr + "' (supported: little-endian f2 f4 f8 i1 i2 i4 i8 u1 b1)");
}

const char* descr_of(DLDataType dtype) {
  for (const Descr& d : kDescrs) {
    if (d.dtype.code == dtype.code && d.dtype.bits == dtype.bits) return d.text;
  }
  return nullptr;
}

size_t element_size(DLDataType dtype) { return (dtype.bits + 7) / 8; }

}  // namespace

HostTensor read_npy(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) bad(path, "cannot open");
  return parse_npy(std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>()), path);
}

HostTensor parse_npy(const std::string& data, const std::string& path) {
  if (data.size() < kMagicSize + 4 || data.compare(0, kMagicSize, kMagic, kMagicSize) != 0) {
    bad(path, "not a .npy file (bad magic)");
  }
  const auto major = static_cast<uint8_t>(data[kMagicSize]);
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = static_cast<uint8_t>(data[8]) | (static_cast<uint8_t>(data[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) bad(path, "truncated header");
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<uint8_t>(data[8 + i]);
    offset = 12;
  } else {
    bad(path, "unsupported .npy format version " + std::to_string(major));
  }
  if (data.size() < offset + header_len) bad(path, "truncated header");
  const std::string header = data.substr(offset, header_len);

  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([^']*)')"))) {
    bad(path, "header has no 'descr'");
  }
  HostTensor tensor;
  tensor.dtype = parse_descr(path, m[1]);
  if (std::regex_search(header, std::regex(R"('fortran_order'\s*:\s*True)"))) {
    bad(path, "Fortran-order arrays are not supported; save with np.ascontiguousarray");
  }
  if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))"))) {
    bad(path, "header has no 'shape'");
  }
  const std::string dims = m[1];
  const std::regex number(R"(\d+)");
  // Counted with overflow checks: a header may claim any size.
  size_t want = element_size(tensor.dtype);
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number);
       it != std::sregex_iterator(); ++it) {
    const std::string digits = it->str();
    int64_t dim = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), dim);
    if (error != std::errc() || end != digits.data() + digits.size() ||
        __builtin_mul_overflow(want, static_cast<uint64_t>(dim), &want)) {
      bad(path, "shape (" + dims + ") is too large");
    }
    tensor.shape.push_back(dim);
  }
  const size_t start = offset + header_len;
  if (data.size() - start < want) {
    bad(path, "truncated data: expected " + std::to_string(want) + " bytes, found " +
                  std::to_string(data.size() - start));
  }
  tensor.bytes.assign(data.begin() + static_cast<std::ptrdiff_t>(start),
                      data.begin() + static_cast<std::ptrdiff_t>(start + want));
  return tensor;
}

void write_npy(const std::string& path, const HostTensor& tensor) {
  const char* descr = descr_of(tensor.dtype);
  if (descr == nullptr) bad(path, "cannot write this dtype to .npy");
  std::string shape;
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    shape += (i > 0 ? ", " : "") + std::to_string(tensor.shape[i]);
  if (tensor.shape.size() == 1) shape += ",";  // a Python 1-tuple: "(4,)"
  std::string header =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes.
  const size_t unpadded = kMagicSize + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::ofstream file(path, std::ios::binary);
  if (!file) bad(path, "cannot create");
  file.write(kMagic, kMagicSize);
  const char version[2] = {1, 0};
  file.write(version, 2);
  const char len[2] = {static_cast<char>(header.size() & 0xff),
                       static_cast<char>((header.size() >> 8) & 0xff)};
  file.write(len, 2);
  file << header;
  file.write(reinterpret_cast<const char*>(tensor.bytes.data()),
             static_cast<std::streamsize>(tensor.bytes.size()));
  if (!file) bad(path, "write failed");
}

}  // namespace omnirt::run
