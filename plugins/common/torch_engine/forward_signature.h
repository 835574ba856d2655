// What a TorchScript module's forward takes, and the caller's DLTensors as
// its arguments: tensors borrowed as tensors, and int, float, bool and Scalar
// arguments read from 0-d tensors (DLPack has no other way to carry them).
#ifndef OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_FORWARD_SIGNATURE_H_
#define OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_FORWARD_SIGNATURE_H_

#include "dl_dtype.h"  // first: libtorch's DLPack header must win

#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

#include <functional>
#include <string>
#include <vector>

namespace omnirt::torch_common {

enum class ArgumentKind {
  kTensor,          ///< Tensor (or a type a tensor is, such as Any)
  kOptionalTensor,  ///< Optional[Tensor]: a tensor; None only by leaving it out
  kInt,             ///< int: a 0-d tensor of an integer type
  kFloat,           ///< float: a 0-d tensor of a float or integer type
  kBool,            ///< bool: a 0-d bool tensor
  kScalar,          ///< Scalar (number): a 0-d bool, integer or float tensor
};

struct ForwardArgument {
  std::string name;
  ArgumentKind kind;
};

struct ForwardSignature {
  /// The leading arguments after `self` that a caller may pass, in order.
  std::vector<ForwardArgument> arguments;
  /// How many of them have no default.
  size_t required = 0;

  /// Throws INVALID_ARGUMENT naming the first argument without a default
  /// whose type no DLTensor carries (a list, a string...): `engine` ("the cpu
  /// engine") passes only the kinds above. An argument of such a type with a
  /// default ends the list: it and those after it keep their defaults.
  static ForwardSignature of(const c10::FunctionSchema& schema, const std::string& engine);

  /// True when an argument is not a tensor (read from memory at each run).
  bool takes_scalars() const;
  /// "forward(x, n: int, z=<default>)" for messages.
  std::string text() const;
};

/// "input 1 ('mask')": how messages name input `index`, forward's `name`
/// ("input 1" when the name is not known).
std::string input_text(size_t index, const std::string& name);

/// Makes `input`, forward's argument `name` at `index`, an at::Tensor over
/// the caller's memory. Throws INVALID_ARGUMENT naming it (input_text).
using TensorWrapper =
    std::function<at::Tensor(const DLTensor& input, size_t index, const std::string& name)>;

/// Throws INVALID_ARGUMENT unless forward takes `num_inputs` inputs.
void check_input_count(const ForwardSignature& signature, size_t num_inputs);

/// forward's stack for `inputs`, with room for the `self` that
/// Method::operator() inserts first. Throws INVALID_ARGUMENT for a wrong
/// count, a scalar given as a tensor that is not 0-d or of a wrong dtype, and
/// whatever `wrap` throws.
std::vector<c10::IValue> to_arguments(const ForwardSignature& signature, const DLTensor* inputs,
                                      size_t num_inputs, const TensorWrapper& wrap);

}  // namespace omnirt::torch_common

#endif  // OMNIRT_PLUGINS_COMMON_TORCH_ENGINE_FORWARD_SIGNATURE_H_
