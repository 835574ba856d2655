// Calls of the named ops of omnirt.nn v1 for the suite: their input shapes,
// deterministic input values, attributes and the kit's reference result, and
// f32 tensors in a backend's device memory to run them on.
#ifndef OMNIRT_CONFORMANCE_OP_CASES_HPP_
#define OMNIRT_CONFORMANCE_OP_CASES_HPP_

#include <gtest/gtest.h>
#include <omnirt/host.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "reference_ops.hpp"
#include "resources.hpp"

namespace omnirt::conformance {

struct OpCase {
  const char* label;  // test parameter name: "rms_norm_eps"
  const char* op;
  std::vector<omnirt_op_attr> attrs;
};
void PrintTo(const OpCase& c, std::ostream* os);

// Every op of omnirt.nn v1, with default attributes and with explicit ones.
const std::vector<OpCase>& op_cases();

// Shapes of the op's inputs; the output is shaped like input 0.
std::vector<reference::Shape> input_shapes(const std::string& op);
// Values in [-2, 2), different for each `seed`.
reference::Data input_values(size_t count, unsigned seed);
// The reference result of `c` on `inputs`.
reference::Data expected(const OpCase& c, const std::vector<reference::Data>& inputs);

// Why the suite cannot check `op` on `backend`: it declares no omnirt.nn v1,
// or does not implement `op` itself; nullopt when it can.
std::optional<std::string> not_checkable(omnirt_backend* backend, const char* op);

// Compares within 1e-5 absolute plus 1e-4 relative and names the first
// element outside.
::testing::AssertionResult Close(const reference::Data& got, const reference::Data& want);

// An f32 tensor in device memory of device 0.
class DeviceTensor {
 public:
  DeviceTensor(omnirt_backend* backend, reference::Shape shape);
  // Allocates and, when `values` is given, uploads them.
  omnirt_status allocate(const reference::Data* values = nullptr);
  omnirt_status download(reference::Data* values) const;
  DLTensor dl();
  size_t count() const;

 private:
  omnirt_backend* backend_;
  DeviceMemory memory_;
  reference::Shape shape_;
};

}  // namespace omnirt::conformance

#endif  // OMNIRT_CONFORMANCE_OP_CASES_HPP_
