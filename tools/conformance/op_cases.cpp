#include "op_cases.hpp"

#include <cmath>
#include <cstring>
#include <random>
#include <utility>

#include "kit.hpp"

namespace omnirt::conformance {
namespace {

using reference::Data;
using reference::Shape;

// Rows of 64: long enough for vectorised kernels to take their main path.
const Shape kShape = {3, 5, 64};

double attr(const OpCase& c, const char* name, double fallback) {
  for (const omnirt_op_attr& a : c.attrs) {
    if (std::strcmp(a.name, name) == 0) return a.value;
  }
  return fallback;
}

}  // namespace

void PrintTo(const OpCase& c, std::ostream* os) { *os << c.label; }

const std::vector<OpCase>& op_cases() {
  static const std::vector<OpCase> cases = {
      {"rms_norm", "rms_norm", {}},
      {"rms_norm_eps", "rms_norm", {{"eps", 1e-2}}},
      {"layer_norm", "layer_norm", {}},
      {"layer_norm_eps", "layer_norm", {{"eps", 1e-2}}},
      {"softmax", "softmax", {}},
      {"softmax_dim1", "softmax", {{"dim", 1}}},
      {"geglu", "geglu", {}},
  };
  return cases;
}

std::vector<Shape> input_shapes(const std::string& op) {
  const Shape row = {kShape.back()};
  if (op == "rms_norm") return {kShape, row};
  if (op == "layer_norm") return {kShape, row, row};
  if (op == "geglu") return {kShape, kShape};
  return {kShape};
}

Data input_values(size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  Data values(count);
  for (float& v : values) v = uniform(engine);
  return values;
}

Data expected(const OpCase& c, const std::vector<Data>& in) {
  const std::string op = c.op;
  if (op == "rms_norm") return reference::rms_norm(kShape, in[0], in[1], attr(c, "eps", 1e-6));
  if (op == "layer_norm") {
    return reference::layer_norm(kShape, in[0], in[1], in[2], attr(c, "eps", 1e-5));
  }
  if (op == "softmax") {
    return reference::softmax(kShape, in[0], static_cast<int64_t>(attr(c, "dim", -1)));
  }
  return reference::geglu(in[0], in[1]);
}

std::optional<std::string> not_checkable(omnirt_backend* backend, const char* op) {
  const omnirt_op_set* sets = nullptr;
  size_t count = 0;
  bool declared = false;
  if (omnirt_list_op_sets(backend, &sets, &count) == OMNIRT_STATUS_OK) {
    for (size_t i = 0; i < count; ++i) {
      declared |= std::strcmp(sets[i].name, reference::kOpSet) == 0 &&
                  sets[i].version == reference::kOpSetVersion;
    }
  }
  if (!declared) {
    return std::string("backend does not declare op set ") + reference::kOpSet + " v" +
           std::to_string(reference::kOpSetVersion) + ", the one the kit has references for";
  }
  omnirt_backend* implementer = nullptr;
  if (omnirt_op_resolve(backend, op, &implementer) != OMNIRT_STATUS_OK || implementer != backend) {
    return std::string("backend does not implement ") + op + " itself";
  }
  return std::nullopt;
}

::testing::AssertionResult Close(const Data& got, const Data& want) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << got.size() << " values, expected " << want.size();
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(std::fabs(got[i] - want[i]) <= 1e-5 + 1e-4 * std::fabs(want[i]))) {
      return ::testing::AssertionFailure() << "element " << i << " is " << got[i]
                                           << ", the reference is " << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

DeviceTensor::DeviceTensor(omnirt_backend* backend, Shape shape)
    : backend_(backend), memory_(backend), shape_(std::move(shape)) {}

size_t DeviceTensor::count() const {
  size_t n = 1;
  for (int64_t d : shape_) n *= static_cast<size_t>(d);
  return n;
}

omnirt_status DeviceTensor::allocate(const Data* values) {
  const size_t bytes = count() * sizeof(float);
  omnirt_status status = omnirt_malloc(backend_, 0, bytes, memory_.out());
  if (status == OMNIRT_STATUS_OK && values != nullptr) {
    status = omnirt_memcpy(backend_, memory_.get(), values->data(), bytes,
                           OMNIRT_MEMCPY_HOST_TO_DEVICE);
  }
  return status;
}

omnirt_status DeviceTensor::download(Data* values) const {
  values->resize(count());
  return omnirt_memcpy(backend_, values->data(), memory_.get(), count() * sizeof(float),
                       OMNIRT_MEMCPY_DEVICE_TO_HOST);
}

DLTensor DeviceTensor::dl() {
  DLTensor t;
  std::memset(&t, 0, sizeof t);
  t.data = memory_.get();
  t.device = {static_cast<DLDeviceType>(kit().caps.dl_device_type), 0};
  t.ndim = static_cast<int32_t>(shape_.size());
  t.dtype = {kDLFloat, 32, 1};
  t.shape = shape_.data();
  return t;
}

}  // namespace omnirt::conformance
