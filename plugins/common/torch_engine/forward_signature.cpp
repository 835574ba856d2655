#include "forward_signature.h"

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::torch_common {
namespace {

using plugin::fail;

const char* kind_text(ArgumentKind kind) {
  switch (kind) {
    case ArgumentKind::kInt: return "int";
    case ArgumentKind::kFloat: return "float";
    case ArgumentKind::kBool: return "bool";
    case ArgumentKind::kScalar: return "Scalar";
    default: return "Tensor";
  }
}

// The kind of argument a DLTensor can be for `type`, or false.
bool kind_of(const c10::TypePtr& type, ArgumentKind* kind) {
  switch (type->kind()) {
    case c10::TypeKind::TensorType: *kind = ArgumentKind::kTensor; return true;
    case c10::TypeKind::IntType: *kind = ArgumentKind::kInt; return true;
    case c10::TypeKind::FloatType: *kind = ArgumentKind::kFloat; return true;
    case c10::TypeKind::BoolType: *kind = ArgumentKind::kBool; return true;
    case c10::TypeKind::NumberType: *kind = ArgumentKind::kScalar; return true;
    case c10::TypeKind::OptionalType:
      if (type->cast<c10::OptionalType>()->getElementType()->kind() == c10::TypeKind::TensorType) {
        *kind = ArgumentKind::kOptionalTensor;
        return true;
      }
      return false;
    default:  // e.g. Any: a tensor is one
      *kind = ArgumentKind::kTensor;
      return c10::TensorType::get()->isSubtypeOf(*type);
  }
}

std::string shape_text(const at::Tensor& t) {
  std::string text;
  for (const int64_t d : t.sizes()) text += (text.empty() ? "" : ", ") + std::to_string(d);
  return "[" + text + "]";
}

// A scalar argument from the 0-d tensor `t`, input `index` named `name`;
// reading a device tensor waits for the work before it on the current stream.
c10::IValue scalar(const at::Tensor& t, ArgumentKind kind, size_t index, const std::string& name) {
  const char* wanted = kind_text(kind);
  if (t.dim() != 0) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, input_text(index, name) + ": forward takes a " + wanted +
                                             " here, given as a 0-d tensor; got shape " +
                                             shape_text(t));
  }
  const at::ScalarType type = t.scalar_type();
  const bool integral = c10::isIntegralType(type, /*includeBool=*/false);
  const bool floating = c10::isFloatingType(type);
  const bool fits = (kind == ArgumentKind::kInt && integral) ||
                    (kind == ArgumentKind::kFloat && (integral || floating)) ||
                    (kind == ArgumentKind::kBool && type == at::kBool) ||
                    (kind == ArgumentKind::kScalar && (integral || floating || type == at::kBool));
  if (!fits) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, input_text(index, name) + ": forward takes a " + wanted +
                                             " here; a 0-d tensor of dtype " +
                                             std::string(c10::toString(type)) + " is not one");
  }
  if (type == at::kBool) return t.item<bool>();
  if (kind == ArgumentKind::kFloat || floating) return t.item<double>();
  return t.item<int64_t>();
}

}  // namespace

std::string input_text(size_t index, const std::string& name) {
  return "input " + std::to_string(index) + (name.empty() ? "" : " ('" + name + "')");
}

ForwardSignature ForwardSignature::of(const c10::FunctionSchema& schema, const std::string& engine) {
  ForwardSignature s;
  const auto& args = schema.arguments();
  // arguments()[0] is `self`.
  for (size_t i = 1; i < args.size(); ++i) {
    ArgumentKind kind;
    const bool has_default = args[i].default_value().has_value();
    if (!kind_of(args[i].type(), &kind)) {
      if (!has_default) {
        fail(OMNIRT_STATUS_INVALID_ARGUMENT,
             "forward's argument '" + args[i].name() + "' is of type " +
                 args[i].type()->annotation_str() + "; " + engine +
                 " passes tensors (Tensor, Optional[Tensor]), and int, float, bool and Scalar "
                 "arguments given as 0-d tensors");
      }
      break;  // it and what follows keep their defaults
    }
    s.arguments.push_back({args[i].name(), kind});
    if (!has_default) s.required = s.arguments.size();
  }
  return s;
}

bool ForwardSignature::takes_scalars() const {
  for (const ForwardArgument& a : arguments) {
    if (a.kind != ArgumentKind::kTensor && a.kind != ArgumentKind::kOptionalTensor) return true;
  }
  return false;
}

std::string ForwardSignature::text() const {
  std::string text = "forward(";
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) text += ", ";
    text += arguments[i].name;
    const ArgumentKind kind = arguments[i].kind;
    if (kind != ArgumentKind::kTensor && kind != ArgumentKind::kOptionalTensor) {
      text += std::string(": ") + kind_text(kind);
    }
    if (i >= required) text += "=<default>";
  }
  return text + ")";
}

void check_input_count(const ForwardSignature& signature, size_t num_inputs) {
  const size_t most = signature.arguments.size();
  if (num_inputs < signature.required || num_inputs > most) {
    const std::string expected = signature.required == most ? std::to_string(most)
                                                            : std::to_string(signature.required) +
                                                                  " to " + std::to_string(most);
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, signature.text() + " takes " + expected +
                                             (most == 1 ? " input" : " inputs") + ", got " +
                                             std::to_string(num_inputs));
  }
}

std::vector<c10::IValue> to_arguments(const ForwardSignature& signature, const DLTensor* inputs,
                                      size_t num_inputs, const TensorWrapper& wrap) {
  check_input_count(signature, num_inputs);
  std::vector<c10::IValue> stack;
  stack.reserve(num_inputs + 1);
  for (size_t i = 0; i < num_inputs; ++i) {
    const ForwardArgument& argument = signature.arguments[i];
    at::Tensor tensor = wrap(inputs[i], i, argument.name);
    if (argument.kind == ArgumentKind::kTensor || argument.kind == ArgumentKind::kOptionalTensor) {
      stack.emplace_back(std::move(tensor));
    } else {
      stack.push_back(scalar(tensor, argument.kind, i, argument.name));
    }
  }
  return stack;
}

}  // namespace omnirt::torch_common
